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
	// text is the text line the record was read from (a plain line, or a
	// structured record's message): a level it states at its start
	// (levelAtStart) beats a wire format's generic one.
	text string
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

// take sets field f from what t found, when d has nothing for it.
func (d *detected) take(t *detected, f field) {
	if t.has[f] && !d.has[f] {
		d.has[f], d.prio[f], d.keys[f], d.vals[f] = true, 99, t.keys[f], t.vals[f]
	}
}

// hasService reports whether d names a service that is not blank.
func (d *detected) hasService() bool {
	return d.has[fieldService] && strings.TrimSpace(d.vals[fieldService]) != ""
}

// fillService sets the service to svc when d names none or a blank one.
func (d *detected) fillService(key, svc string) {
	if !d.hasService() && strings.TrimSpace(svc) != "" {
		d.has[fieldService] = false
		d.setIfAbsent(fieldService, key, svc)
	}
}

// displace moves field f's value to the attributes, under its key.
func (d *detected) displace(f field) {
	if d.has[f] {
		d.attr(d.keys[f], d.vals[f])
		d.has[f], d.keys[f], d.vals[f] = false, "", ""
	}
}

func (d *detected) attr(key, val string) {
	if d.attrs == nil {
		d.attrs = make(map[string]string, 8)
	}
	d.attrs[attrKeyOf(key)] = val
}

// build turns d into a log record. shipped is the shipper's event
// timestamp (Loki's, OTLP's timeUnixNano) and wins over the record's own,
// which is then kept as the attribute log.time; without it the record's own
// time is used, else observed (the time a shipper read the line, OTLP's
// observedTimeUnixNano; zero when there is none), else now. A malformed
// trace or span id rejects the record, and so does a time outside what the
// stores hold (schema.TimeInRange).
func (d *detected) build(shipped, observed, now time.Time) (schema.Record, Reason) {
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
	if r.Time, ok = d.time(shipped, observed, now); !ok {
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
	if isCanonicalHex(v, 32) { // what most loggers write: already normal (not all zeros: see above)
		return schema.TraceID(v), true
	}
	id, err := schema.ParseTraceID(v)
	return id, err == nil
}

// isCanonicalHex reports whether s is n lowercase hex digits: an id that
// schema.ParseTraceID / ParseSpanID return as it is (unless all zeros),
// without their copy.
func isCanonicalHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
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
	if isCanonicalHex(v, 16) { // not all zeros: see above
		return schema.SpanID(v), true
	}
	id, err := schema.ParseSpanID(v)
	return id, err == nil
}

// time picks the record's time (see build); false when the chosen time is
// outside schema.TimeInRange. An own time that cannot be read is kept as
// log.time and observed or now used instead. With an observed time, an own
// time of day alone (15:04:05.000) is placed on its day (lineTime), and an
// own time no store can hold gives way to it.
func (d *detected) time(shipped, observed, now time.Time) (time.Time, bool) {
	own, ok := time.Time{}, false
	if d.has[fieldTime] {
		own, ok = parseTime(d.vals[fieldTime])
		if !ok && shipped.IsZero() && !observed.IsZero() {
			own, ok = lineTime(d.vals[fieldTime], observed)
		}
		if ok && !observed.IsZero() && !schema.TimeInRange(own) {
			ok = false
		}
		if !ok || !shipped.IsZero() {
			d.attr("log.time", d.vals[fieldTime])
		}
	}
	switch {
	case !shipped.IsZero():
		return shipped, schema.TimeInRange(shipped)
	case ok:
		return own, schema.TimeInRange(own)
	case !observed.IsZero():
		return observed, schema.TimeInRange(observed)
	}
	return now, true
}

// genericLevel reports whether d's level says nothing a text could not say
// better: none that can be read, or a syslog default (notice, info,
// informational, syslog's 5 or 6) or "default", as shippers stamp on every
// line they wrap.
func (d *detected) genericLevel() bool {
	s, _ := d.severity()
	if s == 0 {
		return true
	}
	if !d.has[fieldLevel] || s < schema.SeverityInfo || s >= schema.SeverityWarn {
		return false
	}
	return isGenericLevel(d.vals[fieldLevel])
}

// isGenericLevel reports whether a level word is a syslog default.
func isGenericLevel(v string) bool {
	switch lowerASCII(strings.TrimSpace(v)) {
	case "", "notice", "info", "informational", "information", "default", "5", "6":
		return true
	}
	return false
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
