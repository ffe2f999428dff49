package ingest

import (
	"time"

	"github.com/faultline/faultline/schema"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
)

// OTLPLogsProto decodes an OTLP ExportLogsServiceRequest in protobuf. A
// record pdata would refuse the whole body for (an id of the wrong length,
// attributes nested too deep, a field of the wrong type) is rejected alone
// (bad_trace_id, bad_span_id, bad_protobuf; see otlp_proto_scrub.go).
func (dc *Decoder) OTLPLogsProto(data []byte, sink RecordSink) error {
	if otlpInParts(data, false, sink, unmarshalLogs, func(ld plog.Logs, bad map[int]Reason, part RecordSink) {
		dc.otlpLogs(ld, bad, part, false)
	}) {
		return nil
	}
	ld, bad, data, err := parseOTLP(data, false, unmarshalLogs)
	if err != nil {
		return protoError("OTLP/protobuf ExportLogsServiceRequest", data, err)
	}
	dc.otlpLogs(ld, bad, sink, true)
	return nil
}

func unmarshalLogs(data []byte) (plog.Logs, error) {
	req := plogotlp.NewExportRequest()
	err := req.UnmarshalProto(data)
	return req.Logs(), err
}

// OTLPLogsJSON decodes an OTLP ExportLogsServiceRequest in JSON, as the
// Collector's otlphttp exporter and file exporter write it. A record whose
// traceId or spanId is not hex of the right length, whose time is not a
// uint64 or whose JSON nests too deep is rejected alone (bad_trace_id,
// bad_span_id, bad_timestamp, bad_json; see otlp_ids.go); the others are
// read.
func (dc *Decoder) OTLPLogsJSON(data []byte, sink RecordSink) error {
	data, bad := scrubOTLPIDs(trimBOM(data), "logs") // first: what it cuts may be what encoding/json refuses (nesting)
	if err := checkJSONBody(data, "OTLP/JSON"); err != nil {
		return err
	}
	req := plogotlp.NewExportRequest()
	if err := req.UnmarshalJSON(data); err != nil {
		return jsonIterError("OTLP/JSON", err)
	}
	dc.otlpLogs(req.Logs(), bad, sink, true)
	return nil
}

// otlpLogs decodes every record of ld, on every core when parallel is set;
// bad names, by ordinal, the records to reject instead.
func (dc *Decoder) otlpLogs(ld plog.Logs, bad map[int]Reason, sink RecordSink, parallel bool) {
	type item struct {
		res   pcommon.Map
		scope string
		lr    plog.LogRecord
	}
	var items []item
	if parallel {
		items = make([]item, 0, ld.LogRecordCount())
	}
	ord := 0
	for _, rl := range ld.ResourceLogs().All() {
		res := rl.Resource().Attributes()
		for _, sl := range rl.ScopeLogs().All() {
			for _, lr := range sl.LogRecords().All() {
				switch reason, isBad := bad[ord]; {
				case isBad:
					sink.Reject(reason)
				case parallel:
					items = append(items, item{res, sl.Scope().Name(), lr})
				default:
					dc.otlpLog(res, sl.Scope().Name(), lr, sink)
				}
				ord++
			}
		}
	}
	if parallel {
		// Reading pdata concurrently is safe: nothing here modifies it.
		eachParallel(len(items), sink, func(i int, sink RecordSink) { dc.otlpLog(items[i].res, items[i].scope, items[i].lr, sink) })
	}
}

// otlpLog decodes one log record. The record's own ids, severity and
// resource service.name beat anything found in its body or attributes.
func (dc *Decoder) otlpLog(res pcommon.Map, scope string, lr plog.LogRecord, sink RecordSink) {
	var d detected
	dc.otlpBody(lr.Body(), ownsBody(lr), &d)
	dc.detectAttrs(lr.Attributes(), &d)
	for k, v := range res.All() {
		if k == "service.name" {
			d.force(fieldService, k, v.AsString())
			continue
		}
		d.attr(k, v.AsString())
	}
	if id := traceHex(lr.TraceID()); id != "" {
		d.force(fieldTrace, "trace_id", id)
	}
	if id := spanHex(lr.SpanID()); id != "" {
		d.force(fieldSpan, "span_id", id)
	}
	if ev := lr.EventName(); ev != "" {
		d.setIfAbsent(fieldMessage, "event.name", ev) // an event without a body is named by its event name
	}
	if scope != "" && !d.has[fieldName] {
		d.setIfAbsent(fieldName, "logger", scope)
	}
	if lr.Body().Type() == pcommon.ValueTypeMap && d.has[fieldMessage] {
		dc.messageText(&d) // after the record's own ids, which win
	}
	if !d.hasService() {
		d.fillService("service", fileService(lr.Attributes(), res))
	}
	// timeUnixNano is the event's time; without it (the filelog receiver's
	// default) the time the line states beats observedTimeUnixNano.
	var shipped, observed time.Time
	ok := true
	if ts := lr.Timestamp(); ts != 0 {
		shipped, ok = otlpTime(ts)
	} else if ts := lr.ObservedTimestamp(); ts != 0 {
		observed, ok = otlpTime(ts)
	}
	if !ok {
		sink.Reject(ReasonBadTime)
		return
	}
	r, reason := d.build(shipped, observed, dc.now())
	if reason != "" {
		sink.Reject(reason)
		return
	}
	if r.Severity != 0 && isGenericOTLPSeverity(lr) && levelAtStart(d.text) != "" {
		dc.add(r, sink) // the text's own level beats a generic one (see messageText)
		return
	}
	if n := lr.SeverityNumber(); n > 0 && n <= 24 {
		r.Severity = schema.Severity(n)
	}
	if t := lr.SeverityText(); t != "" {
		r.SeverityText = t
		if r.Severity == 0 {
			r.Severity, _ = parseLevel(t)
		}
	}
	dc.add(r, sink)
}

// isGenericOTLPSeverity reports whether lr's severity is one a shipper
// stamps on every line (none, or INFO..INFO4 with no text or a syslog
// default text such as notice; see genericLevel).
func isGenericOTLPSeverity(lr plog.LogRecord) bool {
	n := lr.SeverityNumber()
	if n != 0 && (n < plog.SeverityNumberInfo || n > plog.SeverityNumberInfo4) {
		return false
	}
	if t := lr.SeverityText(); t != "" {
		s, ok := parseLevel(t)
		return !ok || isGenericLevel(t) && s >= schema.SeverityInfo && s < schema.SeverityWarn
	}
	return true
}

// fileService is the service the file a record was read from implies
// (ServiceFromFileName of the attribute log.file.name or log.file.path, as
// the Collector's filelog receiver sets them), or "".
func fileService(attrs, res pcommon.Map) string {
	for _, k := range [...]string{"log.file.name", "log.file.path"} {
		for _, m := range [...]pcommon.Map{attrs, res} {
			if v, ok := m.Get(k); ok {
				if s := ServiceFromFileName(v.AsString()); s != "" {
					return s
				}
			}
		}
	}
	return ""
}

// ownsBody reports whether lr is a structured record whose string body is
// its message: it has its own trace id, time and severity, as an SDK's
// record has. Its body is read as a JSON record's message with its own
// trace id and time is (see messageText): for a level it states at its
// start, and as it is, not searched for ids or cut of a header.
func ownsBody(lr plog.LogRecord) bool {
	return !lr.TraceID().IsEmpty() && lr.Timestamp() != 0 && (lr.SeverityNumber() != 0 || lr.SeverityText() != "")
}

// otlpBody reads a log body: a string as a log line (JSON, logfmt or text)
// or, when the record owns it (ownsBody), as its message; a map as
// structured fields, anything else as its text.
func (dc *Decoder) otlpBody(b pcommon.Value, owns bool, d *detected) {
	switch b.Type() {
	case pcommon.ValueTypeStr:
		switch s := b.Str(); {
		case s == "":
		case owns:
			d.setIfAbsent(fieldMessage, "message", s)
			d.text = s
			if lv := levelAtStart(s); lv != "" {
				d.setIfAbsent(fieldLevel, "level", lv)
			}
		default:
			dc.detectLine(s, d)
		}
	case pcommon.ValueTypeMap:
		flattenInto(d, "", b.Map().AsRaw(), dc.lim.MaxDepth)
	case pcommon.ValueTypeEmpty:
	default:
		d.setIfAbsent(fieldMessage, "body", b.AsString())
	}
}
