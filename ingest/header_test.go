package ingest

import (
	"encoding/json"
	"testing"

	"github.com/faultline/faultline/schema"
)

// TestHeaderStripping decodes plain text lines of common logger formats and
// checks that Body is the message alone, Name the logger or code location,
// and the parsed parts are kept as fields and attributes.
func TestHeaderStripping(t *testing.T) {
	const (
		tr = "da8c1b4e2f3a4b5c6d7e8f9012345678"
		sp = "4ef0a1b2c3d4e5f6"
	)
	cases := []struct {
		format, line string
		w            want
	}{
		{"nezha (logback with code location and ids)",
			"16:42:22.382 ERROR f.s.FoodServiceImpl#302 TraceID: " + tr + " SpanID: " + sp + " [getAllFood][Get the Get Food Request Failed!][x]",
			want{trace: tr, span: sp, sev: schema.SeverityError, name: "f.s.FoodServiceImpl#302",
				body: "[getAllFood][Get the Get Food Request Failed!][x]", attrs: map[string]string{"log.time": "16:42:22.382"}}},
		{"spring boot default",
			"2024-01-15 10:23:45.123 ERROR 12345 --- [nio-8080-exec-1] c.e.demo.OrderController               : Payment declined for order 42",
			want{sev: schema.SeverityError, name: "c.e.demo.OrderController", body: "Payment declined for order 42",
				time: "2024-01-15T10:23:45.123Z", attrs: map[string]string{"thread.name": "nio-8080-exec-1", "process.pid": "12345"}}},
		{"spring boot with sleuth ids",
			"2024-01-15 10:23:45.123  WARN [orders," + tr + "," + sp + "] 1 --- [           main] c.e.d.Retry : retrying call",
			want{trace: tr, span: sp, svc: "orders", sev: schema.SeverityWarn, name: "c.e.d.Retry", body: "retrying call",
				attrs: map[string]string{"thread.name": "main", "process.pid": "1"}}},
		{"logback pattern",
			"10:23:45.123 [http-nio-8080-exec-3] ERROR com.acme.shop.CartService - Cart 17 not found",
			want{sev: schema.SeverityError, name: "com.acme.shop.CartService", body: "Cart 17 not found",
				attrs: map[string]string{"thread.name": "http-nio-8080-exec-3"}}},
		{"log4j with brackets",
			"2015-10-18 18:01:47,978 INFO [main] org.apache.hadoop.mapreduce.v2.app.MRAppMaster: Created MRAppMaster for application",
			want{sev: schema.SeverityInfo, name: "org.apache.hadoop.mapreduce.v2.app.MRAppMaster", body: "Created MRAppMaster for application"}},
		{"log4j separators",
			"2015-07-29 17:41:44,747 - WARN  [QuorumPeer[myid=1]/0.0.0.0:2181:Learner@233] - Unexpected exception",
			want{sev: schema.SeverityWarn, body: "Unexpected exception", attrs: map[string]string{"thread.name": "QuorumPeer[myid=1]/0.0.0.0:2181:Learner@233"}}},
		{"python logging format",
			"2024-01-15 10:23:45,123 - payments.db - ERROR - connection lost trace_id=" + tr,
			want{trace: tr, sev: schema.SeverityError, name: "payments.db", body: "connection lost trace_id=" + tr, time: "2024-01-15T10:23:45.123Z"}},
		{"python basicConfig",
			"ERROR:payments.db:connection lost",
			want{sev: schema.SeverityError, name: "payments.db", body: "connection lost"}},
		{"go log with file",
			"2024/01/15 10:23:45 main.go:42: dial tcp 10.0.0.1:5432: connect: connection refused",
			want{name: "main.go:42", body: "dial tcp 10.0.0.1:5432: connect: connection refused", time: "2024-01-15T10:23:45Z"}},
		{"go log",
			"2024/01/15 10:23:45 server started",
			want{body: "server started", time: "2024-01-15T10:23:45Z"}},
		{"tomcat logger", "16:58:49.729 ERROR o.a.c.c.C.[.[.[.[dispatcherServlet]#175 Servlet.service() threw exception",
			want{sev: schema.SeverityError, name: "o.a.c.c.C.[.[.[.[dispatcherServlet]#175", body: "Servlet.service() threw exception"}},
		{"klog",
			"E1130 16:42:22.382123   12345 controller.go:123] failed to sync pod default/web-0",
			want{sev: schema.SeverityError, name: "controller.go:123", body: "failed to sync pod default/web-0",
				attrs: map[string]string{"process.pid": "12345"}}},
		{"syslog",
			"Jun 14 15:16:01 combo sshd[19939]: authentication failure; rhost=218.188.2.4",
			want{svc: "sshd", body: "authentication failure; rhost=218.188.2.4",
				attrs: map[string]string{"host.name": "combo", "process.pid": "19939", "log.time": "Jun 14 15:16:01"}}},
		{"apache error log",
			"[Sun Dec 04 04:47:44 2005] [error] mod_jk child workerEnv in error state 6",
			want{sev: schema.SeverityError, body: "mod_jk child workerEnv in error state 6"}},
		{"python opentelemetry logging format",
			"2024-01-15 10:23:45,123 ERROR [payments.api] [app.py:42] [trace_id=" + tr + " span_id=" + sp + " resource.service.name=payments trace_sampled=True] - card declined",
			want{trace: tr, span: sp, svc: "payments", sev: schema.SeverityError, name: "app.py:42", body: "card declined",
				attrs: map[string]string{"trace_sampled": "True", "thread.name": "payments.api"}}},
		{"python opentelemetry logging format, no span",
			"2024-01-15 10:23:45,123 WARNING [payments.api] [app.py:42] [trace_id=0 span_id=0 resource.service.name=payments trace_sampled=False] - slow",
			want{svc: "payments", sev: schema.SeverityWarn, name: "app.py:42", body: "slow"}},
		{"traceparent and logfmt-ish ids",
			"2024-01-15T10:23:45.123Z INFO traceparent=00-" + tr + "-" + sp + "-01 request done",
			want{trace: tr, span: sp, sev: schema.SeverityInfo, body: "request done"}},
		{"cri log file",
			"2024-01-15T10:23:45.123456789Z stderr F 10:23:45.123 [main] ERROR com.acme.Foo - boom",
			want{sev: schema.SeverityError, body: "10:23:45.123 [main] ERROR com.acme.Foo - boom", attrs: map[string]string{"log.iostream": "stderr"}}},
		{"exception is message", "10:23:45 ERROR java.lang.IllegalStateException: connection pool exhausted",
			want{sev: schema.SeverityError, body: "java.lang.IllegalStateException: connection pool exhausted"}},
		// Conservative: nothing is cut without a timestamp, logger or ids, nor
		// a word that was not parsed.
		{"level only", "INFO fine", want{sev: schema.SeverityInfo, body: "INFO fine"}},
		{"prose", "connection to example.com failed", want{body: "connection to example.com failed"}},
		{"host after level", "2024-01-15 10:23:45 ERROR example.com unreachable",
			want{sev: schema.SeverityError, body: "example.com unreachable"}},
		{"bracket after level", "10:23:45 ERROR [cart] lost", want{sev: schema.SeverityError, body: "[cart] lost"}},
		{"number after level", "10:23:45 ERROR 42 items lost", want{sev: schema.SeverityError, body: "42 items lost"}},
		{"header only", "10:23:45.123 ERROR", want{sev: schema.SeverityError, body: "10:23:45.123 ERROR"}},
		{"other trace id", "10:23:45 ERROR trace_id=" + tr + " trace_id=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa x",
			want{trace: tr, sev: schema.SeverityError, body: "trace_id=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa x"}},
		{"bare date (once a panic)", "2024-01-15", want{body: "2024-01-15"}},
		{"stack frame", "\tat com.acme.Foo.bar(Foo.java:42)", want{body: "\tat com.acme.Foo.bar(Foo.java:42)"}},
	}
	for _, c := range cases {
		r, st := decodeOne(t, textLine, c.line)
		if st.Rejected != 0 {
			t.Errorf("%s: rejected %v", c.format, st.Rejects)
			continue
		}
		checkRecord(t, c.format, r, c.w)
		if c.w.name == "" && r.Name != "" {
			t.Errorf("%s: name %q, want none", c.format, r.Name)
		}
	}
}

// TestHeaderInLoki checks that a Loki line's header is cut too and the
// stream's service is kept.
func TestHeaderInLoki(t *testing.T) {
	line := `16:42:22.382 ERROR f.s.FoodServiceImpl#302 TraceID: da8c1b4e2f3a4b5c6d7e8f9012345678 SpanID: 4ef0a1b2c3d4e5f6 [getAllFood][failed]`
	body := `{"streams":[{"stream":{"service_name":"food"},"values":[["1674982155666347553",` + jsonString(line) + `]]}]}`
	dc := newTestDecoder(t)
	b := NewBatch(dc.Limits())
	if err := dc.LokiJSON([]byte(body), b); err != nil || len(b.Records) != 1 {
		t.Fatalf("err %v, %d records", err, len(b.Records))
	}
	r := b.Records[0]
	if r.Body != "[getAllFood][failed]" || r.Name != "f.s.FoodServiceImpl#302" || r.Service != "food" ||
		r.Severity != schema.SeverityError || r.SpanID != "4ef0a1b2c3d4e5f6" {
		t.Errorf("got %+v", r)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestServiceAliases covers the service spellings of OpenTelemetry's
// Python logging (otelServiceName) and resource.service.name inside text.
func TestServiceAliases(t *testing.T) {
	for _, c := range []struct {
		fn   func(*Decoder, []byte, RecordSink)
		line string
	}{
		{jsonLine, `{"msg":"x","otelServiceName":"payments","otelTraceID":"4bf92f3577b34da6a3ce929d0e0e4736","otelSpanID":"00f067aa0ba902b7"}`},
		{jsonLine, `{"msg":"x","resource":{"attributes":{"service.name":"payments"}}}`},
		{textLine, `card declined resource.service.name=payments`},
		{textLine, `time=2024-01-15T10:23:45Z level=error resource.service.name=payments msg="card declined"`},
		{textLine, `card declined otelServiceName=payments`},
	} {
		r, _ := decodeOne(t, c.fn, c.line)
		if r.Service != "payments" {
			t.Errorf("%s: service %q, want payments", c.line, r.Service)
		}
	}
}
