package ingest

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
)

// The text of a structured record's message is detected as a text line's:
// syslog-ng and Vector wrap raw lines as JSON.
const wrapped = `{"service":"x","level":"error","msg":"db timeout trace_id=6df93f1a2b3c4d5e6f708192a3b4c5d6 span_id=1a2b3c4d5e6f7081"}`

var nowTest = time.Unix(1e9, 0).UTC()

func testDecoder(cfg DecoderConfig) *Decoder {
	cfg.Now = func() time.Time { return nowTest }
	return NewDecoder(cfg)
}

// lokiPush is a Loki push JSON body with one entry of line under labels.
func lokiPush(t *testing.T, labels map[string]string, ts time.Time, line string) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{"streams": []any{map[string]any{
		"stream": labels, "values": [][]string{{strconv.FormatInt(ts.UnixNano(), 10), line}}}}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// otlpOne builds an OTLP logs request of one record; fill sets it up.
func otlpOne(fill func(res pcommon.Map, lr plog.LogRecord)) plogotlp.ExportRequest {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	lr := rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
	fill(rl.Resource().Attributes(), lr)
	return plogotlp.NewExportRequestFromLogs(ld)
}

// decodeOTLP decodes req as OTLP/JSON and as OTLP/protobuf and checks both
// give one record, the same; it returns it.
func decodeOTLP(t *testing.T, dc *Decoder, req plogotlp.ExportRequest) schema.Record {
	t.Helper()
	js, err := req.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	pb, err := req.MarshalProto()
	if err != nil {
		t.Fatal(err)
	}
	var got []schema.Record
	for name, decode := range map[string]func(*Batch) error{
		"json":     func(b *Batch) error { return dc.OTLPLogsJSON(js, b) },
		"protobuf": func(b *Batch) error { return dc.OTLPLogsProto(pb, b) },
	} {
		b := NewBatch(dc.Limits())
		if err := decode(b); err != nil || len(b.Records) != 1 {
			t.Fatalf("%s: err %v, %d records, rejects %v", name, err, len(b.Records), b.Stats.Rejected)
		}
		got = append(got, b.Records[0])
	}
	if a, b := got[0], got[1]; a.TraceID != b.TraceID || a.Service != b.Service || !a.Time.Equal(b.Time) || a.Severity != b.Severity || a.Body != b.Body {
		t.Fatalf("json and protobuf differ: %+v / %+v", a, b)
	}
	return got[0]
}

func lokiOne(t *testing.T, dc *Decoder, body []byte) schema.Record {
	t.Helper()
	b := NewBatch(dc.Limits())
	if err := dc.LokiJSON(body, b); err != nil || len(b.Records) != 1 {
		t.Fatalf("loki: err %v, %d records, rejects %v", err, len(b.Records), b.Stats.Rejected)
	}
	return b.Records[0]
}

func TestMessageTraceID(t *testing.T) {
	const trace, span = "6df93f1a2b3c4d5e6f708192a3b4c5d6", "1a2b3c4d5e6f7081"
	r, _ := decodeOne(t, jsonLine, wrapped)
	checkRecord(t, "jsonl", r, want{trace: trace, span: span, svc: "x", sev: schema.SeverityError, body: "db timeout trace_id=" + trace + " span_id=" + span})

	dc := testDecoder(DecoderConfig{})
	r = lokiOne(t, dc, lokiPush(t, map[string]string{"job": "syslog"}, nowTest, wrapped))
	checkRecord(t, "loki json line", r, want{trace: trace, span: span, svc: "x", sev: schema.SeverityError})

	more := []struct{ name, line, trace, span, body string }{
		{"traceparent", `{"message":"GET /pay traceparent=00-` + trace + `-` + span + `-01 failed"}`, trace, span, ""},
		{"python otel group", `{"message":"[trace_id=` + trace + ` span_id=` + span + ` resource.service.name=pay] charge failed"}`, trace, span, "charge failed"},
		{"spring ids lead", `{"log":"TraceID: ` + trace + ` SpanID: ` + span + ` charge failed"}`, trace, span, "charge failed"},
		{"own id wins", `{"trace_id":"` + tid + `","msg":"retry trace_id=` + trace + `"}`, tid, "", "retry trace_id=" + trace},
		{"no id", `{"msg":"trace_id=none here"}`, "", "", "trace_id=none here"},
	}
	for _, c := range more {
		r, st := decodeOne(t, jsonLine, c.line)
		if st.Accepted != 1 || string(r.TraceID) != c.trace || string(r.SpanID) != c.span || c.body != "" && r.Body != c.body {
			t.Errorf("%s: trace %q span %q body %q (rejects %v); want %q %q %q", c.name, r.TraceID, r.SpanID, r.Body, st.Rejected, c.trace, c.span, c.body)
		}
	}

	// An OTLP map body (the Collector's json_parser) has no trace id of its own.
	r = decodeOTLP(t, dc, otlpOne(func(res pcommon.Map, lr plog.LogRecord) {
		res.PutStr("service.name", "pay")
		lr.SetTimestamp(pcommon.NewTimestampFromTime(nowTest))
		lr.Body().SetEmptyMap().PutStr("msg", "db timeout trace_id="+trace+" span_id="+span)
	}))
	checkRecord(t, "otlp map body", r, want{trace: trace, span: span, svc: "pay"})
}

func TestMessageLevel(t *testing.T) {
	cases := []struct {
		name, line string
		sev        schema.Severity
		attrs      map[string]string
	}{
		{"syslog notice, ERROR in text", `{"level":"notice","msg":"ERROR db timeout"}`, schema.SeverityError, map[string]string{"level": "notice"}},
		{"info, level= first", `{"severity":"info","message":"level=warn pool nearly full"}`, schema.SeverityWarn, nil},
		{"syslog 6, header level", `{"level":"6","msg":"2026-12-01T10:00:00.123Z [main] ERROR c.a.Pay - charge failed"}`, schema.SeverityError, nil},
		{"no level, text fills", `{"msg":"WARN slow query"}`, schema.SeverityWarn, nil},
		{"explicit level wins", `{"level":"warn","msg":"ERROR db timeout"}`, schema.SeverityWarn, nil},
		{"info, level word later", `{"level":"info","msg":"retry after upstream said ERROR"}`, schema.SeverityInfo, nil},
		{"info, level= later", `{"level":"info","msg":"handled level=error from upstream"}`, schema.SeverityInfo, nil},
		{"info, text says info", `{"level":"notice","msg":"INFO started"}`, schema.SeverityInfo, nil},
	}
	for _, c := range cases {
		r, st := decodeOne(t, jsonLine, c.line)
		if st.Accepted != 1 || r.Severity != c.sev {
			t.Errorf("%s: severity %d (rejects %v), want %d", c.name, r.Severity, st.Rejected, c.sev)
		}
		for k, v := range c.attrs {
			if r.Attrs[k] != v {
				t.Errorf("%s: attr %s=%q, want %q", c.name, k, r.Attrs[k], v)
			}
		}
	}

	// OTLP: a syslog receiver's INFO2 "notice" gives way to the text's ERROR;
	// an explicit WARN does not.
	dc := testDecoder(DecoderConfig{})
	for _, c := range []struct {
		num  plog.SeverityNumber
		text string
		want schema.Severity
	}{
		{plog.SeverityNumberInfo2, "notice", schema.SeverityError},
		{plog.SeverityNumberUnspecified, "", schema.SeverityError},
		{plog.SeverityNumberWarn, "WARN", schema.SeverityWarn},
	} {
		r := decodeOTLP(t, dc, otlpOne(func(res pcommon.Map, lr plog.LogRecord) {
			lr.SetTimestamp(pcommon.NewTimestampFromTime(nowTest))
			lr.SetSeverityNumber(c.num)
			lr.SetSeverityText(c.text)
			lr.Body().SetStr("ERROR c.a.Pay - charge failed")
		}))
		if r.Severity != c.want {
			t.Errorf("otlp %v %q: severity %d, want %d", c.num, c.text, r.Severity, c.want)
		}
	}
}

func TestMessageTime(t *testing.T) {
	const stated = "2026-12-01T10:00:00.123Z"
	observed := time.Date(2026, 12, 1, 11, 30, 0, 0, time.UTC)
	dc := testDecoder(DecoderConfig{})

	// filelog without a time parser: observedTimeUnixNano only.
	for _, c := range []struct{ name, body, want string }{
		{"text body", stated + " ERROR c.a.Pay - charge failed", stated},
		{"json body", `{"msg":"` + stated + ` ERROR charge failed"}`, stated},
		{"time of day", "10:00:00.123 ERROR charge failed", stated},
		{"no time in text", "charge failed", observed.Format(time.RFC3339Nano)},
	} {
		r := decodeOTLP(t, dc, otlpOne(func(res pcommon.Map, lr plog.LogRecord) {
			lr.SetObservedTimestamp(pcommon.NewTimestampFromTime(observed))
			lr.Body().SetStr(c.body)
		}))
		if got := r.Time.UTC().Format(time.RFC3339Nano); got != c.want {
			t.Errorf("otlp %s: time %s, want %s", c.name, got, c.want)
		}
	}
	// The event time still wins over the text's, which is kept.
	r := decodeOTLP(t, dc, otlpOne(func(res pcommon.Map, lr plog.LogRecord) {
		lr.SetTimestamp(pcommon.NewTimestampFromTime(observed))
		lr.SetObservedTimestamp(pcommon.NewTimestampFromTime(observed.Add(time.Second)))
		lr.Body().SetStr(stated + " ERROR charge failed")
	}))
	if !r.Time.Equal(observed) || r.Attrs["log.time"] != stated {
		t.Errorf("otlp with timeUnixNano: time %s log.time %q", r.Time, r.Attrs["log.time"])
	}

	// A JSON line whose only time is in its message.
	r, _ = decodeOne(t, jsonLine, `{"service":"pay","message":"`+stated+` ERROR [main] c.a.Pay - charge failed"}`)
	checkRecord(t, "jsonl", r, want{svc: "pay", sev: schema.SeverityError, time: stated, body: "charge failed", name: "c.a.Pay"})
	// Its own time field wins; the text's is kept as log.time.
	r, _ = decodeOne(t, jsonLine, `{"ts":1709634030,"message":"`+stated+` ERROR charge failed"}`)
	if r.Time.Unix() != 1709634030 || r.Attrs["log.time"] != stated {
		t.Errorf("jsonl with ts: time %s log.time %q", r.Time, r.Attrs["log.time"])
	}
}

func TestServiceFallback(t *testing.T) {
	dc := testDecoder(DecoderConfig{})
	raw := func(attrs map[string]string) plogotlp.ExportRequest {
		return otlpOne(func(res pcommon.Map, lr plog.LogRecord) {
			lr.SetObservedTimestamp(pcommon.NewTimestampFromTime(nowTest))
			for k, v := range attrs {
				lr.Attributes().PutStr(k, v)
			}
			lr.Body().SetStr("charge failed")
		})
	}
	for _, c := range []struct {
		attrs map[string]string
		want  string
	}{
		{map[string]string{"log.file.name": "checkout-7d9f.log"}, "checkout-7d9f"},
		{map[string]string{"log.file.path": "/var/log/pods/pay/payment-service.log.1"}, "payment-service"},
		{map[string]string{"log.file.name": "checkout.log", "service.name": "cart"}, "cart"},
		{nil, ""},
	} {
		if r := decodeOTLP(t, dc, raw(c.attrs)); r.Service != c.want {
			t.Errorf("%v: service %q, want %q", c.attrs, r.Service, c.want)
		}
	}

	// With UnknownService set, no record is stored without a service.
	dc = testDecoder(DecoderConfig{UnknownService: UnknownService})
	if r := decodeOTLP(t, dc, raw(nil)); r.Service != UnknownService {
		t.Errorf("otlp: service %q, want %q", r.Service, UnknownService)
	}
	if r := decodeOTLP(t, dc, raw(map[string]string{"log.file.name": "checkout-7d9f.log"})); r.Service != "checkout-7d9f" {
		t.Errorf("otlp with file: service %q", r.Service)
	}
	for _, line := range []string{`{"msg":"charge failed"}`, `{"service":" ","msg":"charge failed"}`, "ERROR charge failed"} {
		b := NewBatch(dc.Limits())
		dc.TextLine([]byte(line), b)
		if len(b.Records) != 1 || b.Records[0].Service != UnknownService {
			t.Errorf("%s: %+v", line, b.Records)
		}
	}
	if r := lokiOne(t, dc, lokiPush(t, map[string]string{"pod": "p-1"}, nowTest, "charge failed")); r.Service != UnknownService {
		t.Errorf("loki without labels: service %q", r.Service)
	}
	// A blank service field gives way to the file's name.
	b := NewBatch(dc.Limits())
	dc.decodeLine(FormatJSONLines, []byte(`{"service":"","msg":"charge failed"}`), "payment-service", b)
	if len(b.Records) != 1 || b.Records[0].Service != "payment-service" {
		t.Errorf("blank service: %+v", b.Records)
	}
}

func TestLevelAtStart(t *testing.T) {
	for line, want := range map[string]string{
		"ERROR db timeout": "ERROR",
		"2026-12-01T10:00:00Z [main] WARN c.a.Foo - x": "WARN",
		"[error] upstream closed":                      "error",
		"E1130 10:00:00.000000 1 server.go:42] boom":   "E",
		"ERROR:root:boom":                              "ERROR",
		"level=warn pool nearly full":                  "warn",
		"retry after upstream said ERROR":              "",
		"handled level=error from upstream":            "",
		"GET /pay 200":                                 "",
		"":                                             "",
	} {
		if got := levelAtStart(line); got != want {
			t.Errorf("levelAtStart(%q) = %q, want %q", line, got, want)
		}
	}
}
