package ingest

import (
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
)

func TestAliasTable(t *testing.T) {
	cases := []struct {
		key  string
		want field
	}{
		{"trace_id", fieldTrace}, {"traceId", fieldTrace}, {"traceID", fieldTrace}, {"trace.id", fieldTrace},
		{"otelTraceID", fieldTrace}, {"dd.trace_id", fieldTrace}, {"X-B3-TraceId", fieldTrace},
		{"span_id", fieldSpan}, {"spanId", fieldSpan}, {"span.id", fieldSpan}, {"otelSpanID", fieldSpan}, {"dd.span_id", fieldSpan},
		{"parent_span_id", fieldParent}, {"parentSpanId", fieldParent}, {"parent.id", fieldParent},
		{"time", fieldTime}, {"ts", fieldTime}, {"timestamp", fieldTime}, {"@timestamp", fieldTime}, {"@t", fieldTime},
		{"level", fieldLevel}, {"severity", fieldLevel}, {"lvl", fieldLevel}, {"log.level", fieldLevel}, {"levelname", fieldLevel},
		{"level_value", fieldSeverityNumber}, {"severity_number", fieldSeverityNumber},
		{"msg", fieldMessage}, {"message", fieldMessage}, {"body", fieldMessage}, {"@m", fieldMessage},
		{"service", fieldService}, {"service.name", fieldService}, {"app", fieldService}, {"service_name", fieldService},
		{"logger", fieldName}, {"logger_name", fieldName},
		{"user_id", fieldNone}, {"http.status_code", fieldNone},
	}
	for _, c := range cases {
		if got, _ := aliasOf(c.key); got != c.want {
			t.Errorf("aliasOf(%q) = %d, want %d", c.key, got, c.want)
		}
	}
}

func TestParseLevel(t *testing.T) {
	cases := map[string]schema.Severity{
		"ERROR": 17, "error": 17, "err": 17, "E": 17, "50": 17, "40000": 17,
		"WARN": 13, "warning": 13, "W": 13, "40": 13, "30000": 13,
		"INFO": 9, "info": 9, "30": 9, "20000": 9, "Information": 9,
		"DEBUG": 5, "20": 5, "10000": 5, "trace": 1, "10": 1,
		"FATAL": 21, "CRITICAL": 21, "panic": 21, "dpanic": 21, "60": 21, "crit": 21,
		"3": 17, "4": 13, // syslog
	}
	for in, want := range cases {
		got, ok := parseLevel(in)
		if !ok || got != want {
			t.Errorf("parseLevel(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "banana", "1000000000", "-3"} {
		if s, ok := parseLevel(bad); ok {
			t.Errorf("parseLevel(%q) = %d, want unknown", bad, s)
		}
	}
}

func TestParseTime(t *testing.T) {
	want := time.Date(2024, 3, 5, 10, 20, 30, 123000000, time.UTC)
	for _, in := range []string{
		"2024-03-05T10:20:30.123Z", "2024-03-05T11:20:30.123+01:00", "2024-03-05 10:20:30.123",
		"2024-03-05 10:20:30,123", "1709634030.123", "1709634030123", "1709634030123000", "1709634030123000000",
		"2024-03-05T10:20:30.123+0000",
	} {
		got, ok := parseTime(in)
		if !ok || !got.Equal(want) {
			t.Errorf("parseTime(%q) = %v, %v; want %v", in, got, ok, want)
		}
	}
	if got, ok := parseTime("1709634030"); !ok || !got.Equal(want.Truncate(time.Second)) {
		t.Errorf("unix seconds: %v %v", got, ok)
	}
	for _, bad := range []string{"", "yesterday", "0", "16:42:22.382"} {
		if got, ok := parseTime(bad); ok {
			t.Errorf("parseTime(%q) = %v, want failure", bad, got)
		}
	}
	for _, far := range []string{"-5", "1e400", "99999999999999999999"} { // numbers: read, but no store holds them (bad_timestamp)
		if got, ok := parseTime(far); !ok || schema.TimeInRange(got) {
			t.Errorf("parseTime(%q) = %v, %v; want a time outside schema.TimeInRange", far, got, ok)
		}
	}
}

func TestLineTimeOfDay(t *testing.T) {
	ref := time.Date(2023, 1, 29, 16, 42, 0, 0, time.UTC)
	got, ok := lineTime("16:42:22.382 ERROR x", ref)
	if want := time.Date(2023, 1, 29, 16, 42, 22, 382e6, time.UTC); !ok || !got.Equal(want) {
		t.Errorf("lineTime = %v, %v; want %v", got, ok, want)
	}
	got, ok = lineTime("23:59:59.000 INFO late", time.Date(2023, 1, 30, 0, 0, 1, 0, time.UTC))
	if !ok || got.Day() != 29 {
		t.Errorf("time of day across midnight: %v %v", got, ok)
	}
	if _, ok := lineTime("16:42:22.382 ERROR x", time.Time{}); ok {
		t.Error("a time of day without a reference date must not be used")
	}
}

// decodeOne decodes one line with fn and returns the single record or the reject.
func decodeOne(t *testing.T, fn func(*Decoder, []byte, RecordSink), line string) (schema.Record, Stats) {
	t.Helper()
	dc := NewDecoder(DecoderConfig{Now: func() time.Time { return time.Unix(1e9, 0).UTC() }})
	b := NewBatch(dc.Limits())
	fn(dc, []byte(line), b)
	if len(b.Records) > 1 {
		t.Fatalf("%d records from one line", len(b.Records))
	}
	if len(b.Records) == 0 {
		return schema.Record{}, b.Stats
	}
	return b.Records[0], b.Stats
}

func jsonLine(dc *Decoder, l []byte, s RecordSink) { dc.JSONLine(l, s) }
func textLine(dc *Decoder, l []byte, s RecordSink) { dc.TextLine(l, s) }

type want struct {
	trace, span, svc, body, name string
	sev                          schema.Severity
	time                         string // RFC3339Nano, "" = not checked
	attrs                        map[string]string
}

func checkRecord(t *testing.T, label string, r schema.Record, w want) {
	t.Helper()
	if string(r.TraceID) != w.trace || string(r.SpanID) != w.span || r.Service != w.svc || r.Severity != w.sev {
		t.Errorf("%s: got trace=%q span=%q svc=%q sev=%d; want %q %q %q %d",
			label, r.TraceID, r.SpanID, r.Service, r.Severity, w.trace, w.span, w.svc, w.sev)
	}
	if w.body != "" && r.Body != w.body {
		t.Errorf("%s: body %q, want %q", label, r.Body, w.body)
	}
	if w.name != "" && r.Name != w.name {
		t.Errorf("%s: name %q, want %q", label, r.Name, w.name)
	}
	if w.time != "" && r.Time.UTC().Format(time.RFC3339Nano) != w.time {
		t.Errorf("%s: time %s, want %s", label, r.Time.UTC().Format(time.RFC3339Nano), w.time)
	}
	for k, v := range w.attrs {
		if r.Attrs[k] != v {
			t.Errorf("%s: attr %s=%q, want %q (attrs %v)", label, k, r.Attrs[k], v, r.Attrs)
		}
	}
	if r.Body != "" && (r.Template == "" || len(r.Signature) != 16) {
		t.Errorf("%s: template %q signature %q not set", label, r.Template, r.Signature)
	}
}

const (
	tid  = "4bf92f3577b34da6a3ce929d0e0e4736"
	sid  = "00f067aa0ba902b7"
	tid2 = "0af7651916cd43dd8448eb211c80319c"
)

func TestJSONLoggers(t *testing.T) {
	cases := []struct {
		name, line string
		w          want
	}{
		{"zap", `{"level":"error","ts":1709634030.123,"logger":"payments","caller":"pay/charge.go:42","msg":"charge failed","trace_id":"` + tid + `","span_id":"` + sid + `","error":"dial tcp 10.0.0.5:5432: connect: connection refused","service":"checkout"}`,
			want{trace: tid, span: sid, svc: "checkout", sev: 17, body: "charge failed", time: "2024-03-05T10:20:30.123Z", attrs: map[string]string{"exception.message": "dial tcp 10.0.0.5:5432: connect: connection refused"}}},
		{"logrus", `{"level":"warning","msg":"slow query","time":"2024-03-05T10:20:30.123Z","traceID":"` + strings.ToUpper(tid) + `","app":"orders","duration_ms":812}`,
			want{trace: tid, svc: "orders", sev: 13, body: "slow query", attrs: map[string]string{"duration_ms": "812"}}},
		{"slog", `{"time":"2024-03-05T10:20:30.123456789Z","level":"ERROR","msg":"request failed","service.name":"api","trace_id":"` + tid + `","http":{"status_code":503,"method":"GET"}}`,
			want{trace: tid, svc: "api", sev: 17, time: "2024-03-05T10:20:30.123456789Z", attrs: map[string]string{"http.response.status_code": "503", "http.method": "GET"}}},
		{"logstash", `{"@timestamp":"2024-03-05T11:20:30.123+01:00","@version":"1","message":"Timeout calling inventory","logger_name":"c.e.InventoryClient","thread_name":"http-nio-8080-exec-1","level":"ERROR","level_value":40000,"traceId":"` + tid + `","spanId":"` + sid + `","stack_trace":"java.net.SocketTimeoutException: Read timed out","application":"shop"}`,
			want{trace: tid, span: sid, svc: "shop", sev: 17, name: "c.e.InventoryClient", time: "2024-03-05T10:20:30.123Z", attrs: map[string]string{"exception.stacktrace": "java.net.SocketTimeoutException: Read timed out"}}},
		{"bunyan", `{"name":"cart","hostname":"h1","pid":7,"level":50,"msg":"redis timeout","time":"2024-03-05T10:20:30.123Z","v":0,"trace_id":"` + tid + `"}`,
			want{trace: tid, svc: "cart", sev: 17, attrs: map[string]string{"host.name": "h1"}}},
		{"pino", `{"level":40,"time":1709634030123,"pid":1,"hostname":"h","msg":"retrying","traceId":"` + tid + `"}`,
			want{trace: tid, sev: 13, time: "2024-03-05T10:20:30.123Z"}},
		{"datadog", `{"status":"error","message":"boom","dd":{"trace_id":"1234567890123456789","span_id":"987654321","service":"billing","env":"prod"},"level":"ERROR"}`,
			want{trace: "0000000000000000112210f47de98115", span: "000000003ade68b1", svc: "billing", sev: 17, attrs: map[string]string{"deployment.environment": "prod"}}},
		{"otel-style", `{"timeUnixNano":"1709634030123000000","severityText":"WARN","severity_number":13,"body":"pool nearly full","traceId":"` + tid + `","spanId":"` + sid + `","resource.service.name":"db-proxy"}`,
			want{trace: tid, span: sid, svc: "db-proxy", sev: 13, time: "2024-03-05T10:20:30.123Z"}},
		{"ecs", `{"@timestamp":"2024-03-05T10:20:30.123Z","log.level":"error","message":"x","trace":{"id":"` + tid + `"},"span":{"id":"` + sid + `"},"service":{"name":"edge"}}`,
			want{trace: tid, span: sid, svc: "edge", sev: 17}},
		{"64-bit id", `{"msg":"m","trace_id":"a3ce929d0e0e4736","level":"info"}`,
			want{trace: "0000000000000000a3ce929d0e0e4736", sev: 9}},
		{"uuid id", `{"msg":"m","traceId":"4bf92f35-77b3-4da6-a3ce-929d0e0e4736"}`,
			want{trace: tid}},
		{"no time", `{"msg":"m"}`, want{time: "2001-09-09T01:46:40Z"}},
		{"zero ids mean none", `{"msg":"m","trace_id":"00000000000000000000000000000000","span_id":"0","dd.trace_id":""}`, want{}},
	}
	for _, c := range cases {
		r, st := decodeOne(t, jsonLine, c.line)
		if st.Rejected != 0 {
			t.Errorf("%s: rejected %v", c.name, st.Rejects)
			continue
		}
		checkRecord(t, c.name, r, c.w)
	}
}

func TestJSONRejects(t *testing.T) {
	cases := map[string]Reason{
		`{"msg":"x","trace_id":"not-a-trace"}`:   ReasonBadTraceID,
		`{"msg":"x","span_id":"zz"}`:             ReasonBadSpanID,
		`{"msg":"x","trace_id":"` + tid + `00"}`: ReasonBadTraceID,
		`{"msg":"x",`:                            ReasonBadJSON,
		`[1,2]`:                                  ReasonBadJSON,
		`null`:                                   ReasonBadJSON,
		`{"a":1} {"b":2}`:                        ReasonBadJSON,
	}
	for line, reason := range cases {
		_, st := decodeOne(t, jsonLine, line)
		if st.Accepted != 0 || st.Rejects[reason] != 1 {
			t.Errorf("%s: stats %+v, want one %s", line, st, reason)
		}
	}
}

func TestTextLines(t *testing.T) {
	cases := []struct {
		name, line string
		w          want
	}{
		{"spring", `16:42:22.382 ERROR f.s.FoodServiceImpl#302 TraceID: ` + tid + ` SpanID: ` + sid + ` [getAllFood][Get All Food Fail]`,
			want{trace: tid, span: sid, sev: 17}},
		{"logfmt", `time=2024-03-05T10:20:30.123Z level=warn msg="cache miss storm" trace_id=` + tid + ` span_id=` + sid + ` service=cache`,
			want{trace: tid, span: sid, svc: "cache", sev: 13, body: "cache miss storm", time: "2024-03-05T10:20:30.123Z"}},
		{"sleuth", `2024-03-05 10:20:30.123  WARN [orders,` + tid + `,` + sid + `] 1 --- [nio-8080-exec-1] c.e.OrderService : slow`,
			want{trace: tid, span: sid, svc: "orders", sev: 13, time: "2024-03-05T10:20:30.123Z"}},
		{"sleuth 64-bit", `2024-03-05 10:20:30.123 ERROR [orders,a3ce929d0e0e4736,a3ce929d0e0e4736,true] boom`,
			want{trace: "0000000000000000a3ce929d0e0e4736", span: "a3ce929d0e0e4736", svc: "orders", sev: 17}},
		{"traceparent", `[ERROR] upstream failed traceparent=00-` + tid + `-` + sid + `-01`,
			want{trace: tid, span: sid, sev: 17}},
		{"traceId colon", `INFO: handled request traceId: ` + tid + ` in 12ms`,
			want{trace: tid, sev: 9}},
		{"datadog text", `ERROR dd.trace_id=1234567890123456789 dd.span_id=987654321 boom`,
			want{trace: "0000000000000000112210f47de98115", span: "000000003ade68b1", sev: 17}},
		{"klog", `E1130 04:05:06.789012   1234 controller.go:42] sync failed`, want{sev: 17}},
		{"json line in text", `{"level":"error","msg":"x","trace_id":"` + tid + `"}`, want{trace: tid, sev: 17, body: "x"}},
		{"no level in prose", `the error was handled`, want{}},
		{"parent", `span_id=` + sid + ` parent_span_id=a3ce929d0e0e4736 msg=hi`, want{span: sid, body: "hi"}},
	}
	for _, c := range cases {
		r, st := decodeOne(t, textLine, c.line)
		if st.Rejected != 0 {
			t.Errorf("%s: rejected %v", c.name, st.Rejects)
			continue
		}
		checkRecord(t, c.name, r, c.w)
	}
	r, _ := decodeOne(t, textLine, `span_id=`+sid+` parent_span_id=a3ce929d0e0e4736 msg=hi`)
	if r.ParentSpanID != "a3ce929d0e0e4736" {
		t.Errorf("parent span id %q", r.ParentSpanID)
	}
}

func TestUserTextPattern(t *testing.T) {
	tm, err := NewTextMatcher([]TextPattern{{Name: "acme", Regex: `req#(?P<trace_id>[0-9a-f]{32}) sev=(?P<level>\d) svc=(?P<service>\w+) tenant=(?P<tenant>\w+)`}})
	if err != nil {
		t.Fatal(err)
	}
	dc := NewDecoder(DecoderConfig{Text: tm})
	b := NewBatch(dc.Limits())
	dc.TextLine([]byte("req#"+tid+" sev=3 svc=ledger tenant=t1 posting failed"), b)
	if len(b.Records) != 1 {
		t.Fatalf("stats %+v", b.Stats)
	}
	checkRecord(t, "user pattern", b.Records[0], want{trace: tid, svc: "ledger", sev: 17, attrs: map[string]string{"tenant": "t1"}})
	if _, err := NewTextMatcher([]TextPattern{{Name: "bad", Regex: "(("}}); err == nil {
		t.Error("a bad regex compiled")
	}
}
