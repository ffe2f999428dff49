package ingest

import (
	"strconv"
	"strings"
	"time"

	"github.com/faultline/faultline/schema"
)

// detected gathers what field detection found for one log record before it
// is built: for each field the winning key and value (by alias priority),
// and every other key as an attribute.
type detected struct {
	has   [fieldName + 1]bool
	prio  [fieldName + 1]int
	keys  [fieldName + 1]string
	vals  [fieldName + 1]string
	attrs map[string]string
}

// set routes one key/value pair through the alias table. A value displaced
// by a higher-priority alias, or a second value of the same priority, stays
// as an attribute.
func (d *detected) set(key, val string) {
	f, p := aliasOf(key)
	if f == fieldNone {
		d.attr(key, val)
		return
	}
	if d.has[f] {
		if d.prio[f] <= p {
			d.attr(key, val)
			return
		}
		d.attr(d.keys[f], d.vals[f])
	}
	d.has[f], d.prio[f], d.keys[f], d.vals[f] = true, p, key, val
}

// setIfAbsent sets field f only when detection found nothing for it.
func (d *detected) setIfAbsent(f field, key, val string) {
	if !d.has[f] && val != "" {
		d.has[f], d.prio[f], d.keys[f], d.vals[f] = true, 99, key, val
	}
}

func (d *detected) attr(key, val string) {
	if d.attrs == nil {
		d.attrs = make(map[string]string, 8)
	}
	d.attrs[attrKeyOf(key)] = val
}

// build turns d into a log record. shipped is the shipper's timestamp
// (Loki's, OTLP's) and wins over the record's own, which is then kept as
// the attribute log.time; when both are absent, now is used. A malformed
// trace or span id rejects the record, and so does a time outside what the
// stores hold (schema.TimeInRange).
func (d *detected) build(shipped, now time.Time) (schema.Record, Reason) {
	r := schema.Record{Type: schema.TypeLog}
	var ok bool
	if r.TraceID, ok = d.traceID(); !ok {
		return r, ReasonBadTraceID
	}
	if r.SpanID, ok = d.spanID(fieldSpan); !ok {
		return r, ReasonBadSpanID
	}
	if r.ParentSpanID, ok = d.spanID(fieldParent); !ok {
		return r, ReasonBadSpanID
	}
	if r.Time, ok = d.time(shipped, now); !ok {
		return r, ReasonBadTime
	}
	r.Severity, r.SeverityText = d.severity()
	r.Body = d.vals[fieldMessage]
	r.Service = d.vals[fieldService]
	r.Name = d.vals[fieldName]
	r.Attrs = d.attrs
	return r, ""
}

func (d *detected) traceID() (schema.TraceID, bool) {
	v := strings.TrimSpace(d.vals[fieldTrace])
	if !d.has[fieldTrace] || strings.Trim(v, "0-") == "" { // "", 0 and all zeros mean "no trace"
		return "", true
	}
	if i := strings.LastIndexByte(v, '/'); i >= 0 { // projects/P/traces/ID
		v = v[i+1:]
	}
	if strings.HasPrefix(lowerASCII(d.keys[fieldTrace]), "dd.") {
		n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
		if err != nil || n == 0 {
			return "", false
		}
		v = strconv.FormatUint(n, 16)
	}
	id, err := schema.ParseTraceID(v)
	return id, err == nil
}

func (d *detected) spanID(f field) (schema.SpanID, bool) {
	v := strings.TrimSpace(d.vals[f])
	if !d.has[f] || strings.Trim(v, "0") == "" {
		return "", true
	}
	if strings.HasPrefix(lowerASCII(d.keys[f]), "dd.") {
		n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
		if err != nil || n == 0 {
			return "", false
		}
		v = strconv.FormatUint(n, 16)
	}
	id, err := schema.ParseSpanID(v)
	return id, err == nil
}

// time picks the record's time (see build); false when the chosen time is
// outside schema.TimeInRange. An own
// time that cannot be read is kept as log.time and now used instead.
func (d *detected) time(shipped, now time.Time) (time.Time, bool) {
	own, ok := time.Time{}, false
	if d.has[fieldTime] {
		own, ok = parseTime(d.vals[fieldTime])
		if !ok || !shipped.IsZero() {
			d.attr("log.time", d.vals[fieldTime])
		}
	}
	switch {
	case !shipped.IsZero():
		return shipped, schema.TimeInRange(shipped)
	case ok:
		return own, schema.TimeInRange(own)
	}
	return now, true
}

func (d *detected) severity() (schema.Severity, string) {
	if d.has[fieldSeverityNumber] {
		if s, ok := severityNumber(d.vals[fieldSeverityNumber]); ok && lowerASCII(d.keys[fieldSeverityNumber]) != "level_value" {
			return s, d.vals[fieldLevel]
		}
	}
	if d.has[fieldLevel] {
		if s, ok := parseLevel(d.vals[fieldLevel]); ok {
			return s, d.vals[fieldLevel]
		}
	}
	if d.has[fieldSeverityNumber] {
		if s, ok := parseLevel(d.vals[fieldSeverityNumber]); ok {
			return s, d.vals[fieldLevel]
		}
	}
	return 0, d.vals[fieldLevel]
}

// force sets field f, moving a value detection found earlier to the
// attributes: for fields a wire format carries natively (OTLP ids,
// resource service.name), which beat anything found in the text.
func (d *detected) force(f field, key, val string) {
	if d.has[f] && d.keys[f] != key {
		d.attr(d.keys[f], d.vals[f])
	}
	d.has[f], d.prio[f], d.keys[f], d.vals[f] = true, -1, key, val
}
