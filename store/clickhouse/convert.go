package clickhouse

import (
	"fmt"
	"maps"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/faultline/faultline/patterns"
	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store/backend"
)

// Attribute keys under which faultline keeps the Record fields that the
// Collector's tables have no column for. Readers of the plain Collector
// schema see them as ordinary attributes; faultline removes them on read.
const (
	extraPrefix      = "faultline."
	keyParentSpanID  = "faultline.parent_span_id"
	keyDuration      = "faultline.duration_ns"
	keyStatus        = "faultline.status"
	keySeverity      = "faultline.severity"
	keySeverityText  = "faultline.severity_text"
	keyTemplate      = "faultline.template"
	keySignature     = "faultline.signature"
	keyName          = "faultline.name"
	exceptionEvent   = "exception"
	exceptionMessage = "exception.message"
)

// Span status codes as the Collector writes them (current generation);
// the previous generation's STATUS_CODE_* forms are read too.
const (
	statusError = "Error"
	statusOK    = "Ok"
	statusUnset = "Unset"
)

// validate refuses records that ClickHouse cannot hold as they are. The
// times it holds are schema.TimeInRange (1970-2105): DateTime64(9) holds
// 1900-2262, but the Collector's tables also keep the time as DateTime and
// partition by Date, which hold 1970-2106; ingest rejects other times first.
func validate(recs []schema.Record) error {
	for i := range recs {
		r := &recs[i]
		if !schema.TimeInRange(r.Time) {
			return fmt.Errorf("%w: record %d has time %s, outside the years 1970-2105", backend.ErrBadRecord, i,
				r.Time.UTC().Format(time.RFC3339))
		}
		if r.Type != schema.TypeLog && r.Type != schema.TypeSpan {
			return fmt.Errorf("%w: record %d has unknown type %d", backend.ErrBadRecord, i, r.Type)
		}
	}
	return nil
}

// isResourceKey reports whether an attribute key describes the resource
// (its namespace is one of OpenTelemetry's resource conventions); the
// others are record attributes.
func isResourceKey(k string) bool {
	ns, _, ok := strings.Cut(k, ".")
	if !ok {
		return false
	}
	switch ns {
	case "service", "host", "k8s", "container", "cloud", "deployment", "process",
		"os", "telemetry", "faas", "device", "webengine":
		return true
	}
	return false
}

// splitAttrs divides r.Attrs into resource and record attributes; the
// record map is always non-nil, for the faultline.* keys.
func splitAttrs(r *schema.Record) (res, rec map[string]string) {
	res = map[string]string{}
	rec = make(map[string]string, len(r.Attrs)+4)
	for k, v := range r.Attrs {
		if isResourceKey(k) {
			res[k] = v
		} else {
			rec[k] = v
		}
	}
	rec[keyTemplate] = r.Template
	rec[keySignature] = string(r.Signature)
	return res, rec
}

// logExtras adds a log record's fields that otel_logs has no column for.
func logExtras(r *schema.Record, rec map[string]string, hasScope bool) {
	if r.ParentSpanID != "" {
		rec[keyParentSpanID] = string(r.ParentSpanID)
	}
	if r.Duration != 0 {
		rec[keyDuration] = strconv.FormatInt(int64(r.Duration), 10)
	}
	if r.Status != schema.StatusUnset {
		rec[keyStatus] = strconv.Itoa(int(r.Status))
	}
	if r.Name != "" && !hasScope {
		rec[keyName] = r.Name
	}
}

// spanExtras adds a span's fields that otel_traces has no column for.
func spanExtras(r *schema.Record, rec map[string]string) {
	if r.Severity != 0 {
		rec[keySeverity] = strconv.Itoa(int(r.Severity))
	}
	if r.SeverityText != "" {
		rec[keySeverityText] = r.SeverityText
	}
}

func statusCode(s schema.SpanStatus) string {
	switch s {
	case schema.StatusError:
		return statusError
	case schema.StatusOK:
		return statusOK
	}
	return statusUnset
}

func parseStatus(s string) schema.SpanStatus {
	switch s {
	case statusError, "STATUS_CODE_ERROR":
		return schema.StatusError
	case statusOK, "STATUS_CODE_OK":
		return schema.StatusOK
	}
	return schema.StatusUnset
}

// row is one record as the read queries return it, from any table.
type row struct {
	kind                             uint8
	ts                               time.Time
	traceID, spanID, parent, service string
	severity                         int32
	severityText, body, name         string
	duration                         int64
	status                           string
	attrs                            string // as attrText writes them (see wireCols)
	hasTemplate                      bool   // the record has faultline's template
	template, signature              string
	eventNames                       []string
	eventAttrs                       []map[string]string
	count                            uint64 // the records the row stands for (a grouped read's N)
}

// dest is where a row's columns scan to, counted when the read sends how
// many records each row stands for (wireColsN).
func (w *row) dest(counted bool) []any {
	d := []any{&w.kind, &w.ts, &w.traceID, &w.spanID, &w.parent, &w.service, &w.severity,
		&w.severityText, &w.body, &w.name, &w.duration, &w.status, &w.attrs,
		&w.hasTemplate, &w.template, &w.signature, &w.eventNames, &w.eventAttrs}
	if counted {
		d = append(d, &w.count)
	}
	return d
}

// attrSets decodes the attribute maps of one read, each distinct one
// once: a window's millions of rows carry some thousands of distinct maps
// (a template, its signature, a version, a pod). Decoded, a map is split
// into the record's attributes and faultline's keys (extras). The cache
// keeps two generations of at most attrSetsMax maps each: a full one
// becomes the old one, whose maps still asked for move to the new one.
type attrSets struct {
	cur, old map[string]*attrSet
}

type attrSet struct {
	attrs, extras map[string]string // read only: the records of its rows share attrs
}

const attrSetsMax = 1 << 14

func (c *attrSets) get(text string) (*attrSet, error) {
	if set, ok := c.cur[text]; ok {
		return set, nil
	}
	set, ok := c.old[text]
	if !ok {
		var err error
		if set, err = decodeAttrSet(text); err != nil {
			return nil, err
		}
	}
	if c.cur == nil || len(c.cur) >= attrSetsMax {
		c.old, c.cur = c.cur, make(map[string]*attrSet, 256)
	}
	c.cur[text] = set
	return set, nil
}

// decodeAttrSet reads a map as attrText writes it. Its keys and values
// are views of one copy of text.
func decodeAttrSet(text string) (*attrSet, error) {
	all := map[string]string{}
	for rest := strings.Clone(text); rest != ""; {
		k, after, ok := lengthPrefixed(rest)
		if ok {
			var v string
			if v, rest, ok = lengthPrefixed(after); ok {
				all[k] = v
				continue
			}
		}
		return nil, fmt.Errorf("attributes %.60q: not lengths and texts at byte %d", text, len(text)-len(rest))
	}
	set := &attrSet{}
	for k, v := range all {
		if strings.HasPrefix(k, extraPrefix) {
			if set.extras == nil {
				set.extras = map[string]string{}
			}
			set.extras[k] = v
			delete(all, k)
		}
	}
	if len(all) > 0 {
		set.attrs = all
	}
	return set, nil
}

// lengthPrefixed splits s after its first field: its length in bytes, a
// colon, its bytes.
func lengthPrefixed(s string) (field, rest string, ok bool) {
	i := strings.IndexByte(s, ':')
	if i <= 0 || i > 10 {
		return "", "", false
	}
	n, err := strconv.Atoi(s[:i])
	if err != nil || n < 0 || n > len(s)-i-1 {
		return "", "", false
	}
	return s[i+1 : i+1+n], s[i+1+n:], true
}

// record converts a row into a Record, taking the faultline.* keys back
// out of the attributes and computing the template when none was stored.
func (w *row) record(sets *attrSets) (schema.Record, error) {
	set, err := sets.get(w.attrs)
	if err != nil {
		return schema.Record{}, err
	}
	r := schema.Record{
		Type: schema.RecordType(w.kind), Time: w.ts.UTC(), TraceID: schema.TraceID(w.traceID),
		SpanID: schema.SpanID(w.spanID), ParentSpanID: schema.SpanID(w.parent), Service: w.service,
		Severity: schema.Severity(w.severity), SeverityText: w.severityText, Body: w.body, Name: w.name,
	}
	if w.count > 1 {
		r.Count = uint32(min(w.count, math.MaxUint32))
	}
	if r.Type == schema.TypeSpan {
		r.Duration, r.Status = time.Duration(w.duration), parseStatus(w.status)
	}
	r.Attrs = set.attrs // shared by the rows that carry the same map: read only
	w.applyExtras(&r, set.extras)
	if r.Type == schema.TypeSpan && r.Body == "" {
		r.Body = w.exceptionMessage(&r)
	}
	switch {
	case w.hasTemplate:
		r.Template, r.Signature = w.template, schema.Signature(w.signature)
	case r.Body != "":
		r.Template = patterns.Mask(r.Body)
		r.Signature = patterns.SignatureOf(r.Service, r.Template)
	}
	return r, nil
}

func (w *row) applyExtras(r *schema.Record, x map[string]string) {
	if len(x) == 0 {
		return
	}
	if v := x[keyParentSpanID]; v != "" && r.ParentSpanID == "" {
		r.ParentSpanID = schema.SpanID(v)
	}
	if v := x[keyName]; v != "" && r.Name == "" {
		r.Name = v
	}
	if r.Type == schema.TypeLog {
		if n, err := strconv.ParseInt(x[keyDuration], 10, 64); err == nil {
			r.Duration = time.Duration(n)
		}
		if n, err := strconv.Atoi(x[keyStatus]); err == nil {
			r.Status = schema.SpanStatus(n)
		}
		return
	}
	if n, err := strconv.Atoi(x[keySeverity]); err == nil && r.Severity == 0 {
		r.Severity = schema.Severity(n)
	}
	if v := x[keySeverityText]; v != "" && r.SeverityText == "" {
		r.SeverityText = v
	}
}

// exceptionMessage is the message of a span's exception event, as the
// Collector stores OpenTelemetry's span.RecordError; it also copies the
// exception type into the attributes when they lack it.
func (w *row) exceptionMessage(r *schema.Record) string {
	for i, name := range w.eventNames {
		if name != exceptionEvent || i >= len(w.eventAttrs) {
			continue
		}
		ev := w.eventAttrs[i]
		if t := ev[schema.AttrExceptionType]; t != "" {
			if _, ok := r.Attrs[schema.AttrExceptionType]; !ok {
				attrs := make(map[string]string, len(r.Attrs)+1) // the read's map is shared
				maps.Copy(attrs, r.Attrs)
				attrs[schema.AttrExceptionType] = t
				r.Attrs = attrs
			}
		}
		return ev[exceptionMessage]
	}
	return ""
}
