package correlate

import (
	"math"
	"strings"
	"time"

	"github.com/faultline/faultline/internal/strs"
	"github.com/faultline/faultline/schema"
)

// heldRec is an error or warning errorsRead holds, in 72 bytes where a
// schema.Record takes 208: its time in nanoseconds (UTC), its ids and body
// in one string of its own, and the names that repeat from record to
// record (service, operation, severity text, template, signature) as one
// shared heldNames. A record that does not fit (a time not in UTC or out
// of range, an id past 255 bytes) is kept whole, in full. The store
// rules hold tens of thousands of them, every one of a busy stretch.
type heldRec struct {
	ns, dur int64
	// text is the trace id, span id, parent span id and body, one after
	// the other.
	text  string
	attrs map[string]string
	names *heldNames
	full  *schema.Record
	count uint32
	sev   schema.Severity
	// The lengths of the ids in text; the body is the rest.
	traceLen, spanLen, parentLen uint8
	typ                          schema.RecordType
	status                       schema.SpanStatus
}

// heldNames are the strings of a held record that repeat.
type heldNames struct {
	service, name, sevText, template string
	signature                        schema.Signature
}

// holdRecord makes r a heldRec, its strings copies of their own: the
// store's may be views of what it decoded r from (a copy of its whole
// encoding, every attribute of it, or its block). The names are shared
// through e.names, up to maxHeldNames of them; past that, a record's are
// its own.
func (e *errorsRead) holdRecord(r *schema.Record) heldRec {
	ns := r.Time.UnixNano()
	if r.Time != time.Unix(0, ns).UTC() || len(r.TraceID) > math.MaxUint8 || len(r.SpanID) > math.MaxUint8 || len(r.ParentSpanID) > math.MaxUint8 {
		c := *r
		e.ownFull(&c)
		return heldRec{full: &c}
	}
	k := heldNames{r.Service, r.Name, r.SeverityText, r.Template, r.Signature}
	names := e.names[k]
	if names == nil {
		names = &heldNames{strings.Clone(k.service), strings.Clone(k.name), strings.Clone(k.sevText), strings.Clone(k.template),
			schema.Signature(strings.Clone(string(k.signature)))}
		if e.names == nil {
			e.names = map[heldNames]*heldNames{}
		}
		if len(e.names) < maxHeldNames {
			e.names[*names] = names
		}
	}
	return heldRec{ns: ns, dur: int64(r.Duration), text: strs.Join(string(r.TraceID), string(r.SpanID), string(r.ParentSpanID), r.Body),
		attrs: r.Attrs, names: names, count: r.Count, sev: r.Severity,
		traceLen: uint8(len(r.TraceID)), spanLen: uint8(len(r.SpanID)), parentLen: uint8(len(r.ParentSpanID)),
		typ: r.Type, status: r.Status}
}

// ownFull gives a record kept whole strings of its own.
func (e *errorsRead) ownFull(r *schema.Record) {
	for _, p := range [...]*string{(*string)(&r.TraceID), (*string)(&r.SpanID), (*string)(&r.ParentSpanID), &r.Service,
		&r.Name, &r.SeverityText, &r.Body, &r.Template, (*string)(&r.Signature)} {
		*p = strings.Clone(*p) // "" for an empty one: no view
	}
}

// record is the record h holds, as the store gave it.
func (h *heldRec) record() schema.Record {
	if h.full != nil {
		return *h.full
	}
	t, s, p := int(h.traceLen), int(h.spanLen), int(h.parentLen)
	return schema.Record{Type: h.typ, Count: h.count, Time: time.Unix(0, h.ns).UTC(),
		TraceID: schema.TraceID(h.text[:t]), SpanID: schema.SpanID(h.text[t : t+s]), ParentSpanID: schema.SpanID(h.text[t+s : t+s+p]),
		Service: h.names.service, Severity: h.sev, SeverityText: h.names.sevText, Body: h.text[t+s+p:], Name: h.names.name,
		Duration: time.Duration(h.dur), Status: h.status, Template: h.names.template, Signature: h.names.signature, Attrs: h.attrs}
}

// at is h's time.
func (h *heldRec) at() time.Time {
	if h.full != nil {
		return h.full.Time
	}
	return time.Unix(0, h.ns).UTC()
}

// recType is h's record type.
func (h *heldRec) recType() schema.RecordType {
	if h.full != nil {
		return h.full.Type
	}
	return h.typ
}
