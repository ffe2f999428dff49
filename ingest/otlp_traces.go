package ingest

import (
	"time"

	"github.com/faultline/faultline/schema"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

// OTLPTracesProto decodes an OTLP ExportTraceServiceRequest in protobuf.
// A span pdata would refuse the whole body for is rejected alone, as in
// OTLPLogsProto (a bad span link is emptied, the span kept).
func (dc *Decoder) OTLPTracesProto(data []byte, sink RecordSink) error {
	if otlpInParts(data, true, sink, unmarshalTraces, dc.otlpTraces) {
		return nil
	}
	td, bad, data, err := parseOTLP(data, true, unmarshalTraces)
	if err != nil {
		return protoError("OTLP/protobuf ExportTraceServiceRequest", data, err)
	}
	dc.otlpTraces(td, bad, sink)
	return nil
}

func unmarshalTraces(data []byte) (ptrace.Traces, error) {
	req := ptraceotlp.NewExportRequest()
	err := req.UnmarshalProto(data)
	return req.Traces(), err
}

// OTLPTracesJSON decodes an OTLP ExportTraceServiceRequest in JSON. A span
// whose traceId, spanId or parentSpanId is not hex of the right length is
// rejected (a bad id of a span link is dropped); the others are read.
func (dc *Decoder) OTLPTracesJSON(data []byte, sink RecordSink) error {
	data, bad := scrubOTLPIDs(trimBOM(data), "spans") // first: what it cuts may be what encoding/json refuses (nesting)
	if err := checkJSONBody(data, "OTLP/JSON"); err != nil {
		return err
	}
	req := ptraceotlp.NewExportRequest()
	if err := req.UnmarshalJSON(data); err != nil {
		return jsonIterError("OTLP/JSON", err)
	}
	dc.otlpTraces(req.Traces(), bad, sink)
	return nil
}

// otlpTraces decodes every span of td; bad names, by ordinal, the spans to
// reject instead.
func (dc *Decoder) otlpTraces(td ptrace.Traces, bad map[int]Reason, sink RecordSink) {
	ord := 0
	for _, rs := range td.ResourceSpans().All() {
		res := rs.Resource().Attributes()
		for _, ss := range rs.ScopeSpans().All() {
			for _, sp := range ss.Spans().All() {
				if reason, ok := bad[ord]; ok {
					sink.Reject(reason)
				} else {
					dc.otlpSpan(res, sp, sink)
				}
				ord++
			}
		}
	}
}

// otlpSpan turns one span into a record. A span without a trace id or span
// id is rejected. An error span's Body is its status message, else the
// message of its exception event, whose type becomes exception.type.
func (dc *Decoder) otlpSpan(res pcommon.Map, sp ptrace.Span, sink RecordSink) {
	r := schema.Record{Type: schema.TypeSpan, Name: sp.Name(), Attrs: map[string]string{}}
	var err error
	if r.TraceID, err = schema.ParseTraceID(traceHex(sp.TraceID())); err != nil {
		sink.Reject(ReasonBadTraceID)
		return
	}
	if r.SpanID, err = schema.ParseSpanID(spanHex(sp.SpanID())); err != nil {
		sink.Reject(ReasonBadSpanID)
		return
	}
	if p := spanHex(sp.ParentSpanID()); p != "" {
		r.ParentSpanID, _ = schema.ParseSpanID(p) // 8 non-zero bytes always parse
	}
	start, end := sp.StartTimestamp(), sp.EndTimestamp()
	var ok bool
	if r.Time, ok = otlpTime(start); !ok || end != 0 && !schema.UnixNanoInRange(uint64(end)) {
		sink.Reject(ReasonBadTime)
		return
	}
	if end > start {
		r.Duration = time.Duration(end - start)
	}
	r.Service = plainAttrs(res, r.Attrs)
	plainAttrs(sp.Attributes(), r.Attrs)
	if k := sp.Kind(); k != ptrace.SpanKindUnspecified {
		r.Attrs["span.kind"] = k.String()
	}
	spanStatus(sp, &r)
	add(r, sink)
}

// otlpTime converts an OTLP timeUnixNano; false when it is outside
// schema.TimeInRange (checked before the conversion, which would wrap).
func otlpTime(ts pcommon.Timestamp) (time.Time, bool) {
	if !schema.UnixNanoInRange(uint64(ts)) {
		return time.Time{}, false
	}
	t := ts.AsTime().UTC()
	return t, schema.TimeInRange(t)
}

func spanStatus(sp ptrace.Span, r *schema.Record) {
	switch sp.Status().Code() {
	case ptrace.StatusCodeOk:
		r.Status = schema.StatusOK
	case ptrace.StatusCodeError:
		r.Status = schema.StatusError
		r.Severity = schema.SeverityError
	default:
		return
	}
	r.Body = sp.Status().Message()
	for _, ev := range sp.Events().All() {
		if ev.Name() != "exception" {
			continue
		}
		if v, ok := ev.Attributes().Get("exception.type"); ok {
			r.Attrs[schema.AttrExceptionType] = v.AsString()
		}
		if v, ok := ev.Attributes().Get("exception.message"); ok && r.Body == "" {
			r.Body = v.AsString()
		}
		break
	}
}
