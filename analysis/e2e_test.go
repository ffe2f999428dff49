package analysis_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/gogo/protobuf/proto"
	"github.com/golang/snappy"
	"github.com/grafana/loki/pkg/push"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"

	"github.com/faultline/faultline/analysis"
	"github.com/faultline/faultline/ingest"
	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store"
)

// The incident of the end-to-end test: payment's database pool runs dry;
// checkout times out calling payment and frontend answers 502. Each
// service ships its telemetry the way its team set it up: frontend writes
// JSON lines, checkout goes through Promtail (Loki protobuf), payment uses
// an OpenTelemetry SDK (OTLP protobuf, logs and spans), and the gateway's
// access log goes through Vector (Loki JSON).
const (
	e2eTrace = "5b8aa5a2d2c872e8321cf37308d69df2"
	spanGW   = "1111111111111111"
	spanFE   = "2222222222222222"
	spanCO   = "3333333333333333"
	spanPAY  = "4444444444444444"
)

func TestIngestFormatsThenTrace(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "e2e.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	srv := ingest.NewServer(ingest.ServerConfig{}, st, nil)
	logs := httptest.NewServer(srv.Handler())
	defer logs.Close()
	otlp := httptest.NewServer(srv.OTLPHandler())
	defer otlp.Close()

	t0 := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

	// payment (OTLP protobuf): spans and the pool error, logged first.
	post(t, otlp.URL+"/v1/traces", "application/x-protobuf", otlpSpans(t, at))
	post(t, otlp.URL+"/v1/logs", "application/x-protobuf", otlpLogs(t, at))
	// checkout (Loki protobuf + snappy): its timeout calling payment.
	post(t, logs.URL+"/loki/api/v1/push", "application/x-protobuf", lokiProto(t, at))
	// frontend (JSON lines, zap's field names): the 502 it answered.
	jl := fmt.Sprintf(`{"level":"error","ts":%.3f,"msg":"upstream checkout failed: 502 Bad Gateway","service":"frontend","trace_id":"%s","span_id":"%s"}`+"\n"+
		`{"level":"info","ts":%.3f,"msg":"GET /cart 502 3012ms","service":"frontend","trace_id":"%s","span_id":"%s"}`+"\n",
		float64(at(3020).UnixNano())/1e9, e2eTrace, spanFE, float64(at(3025).UnixNano())/1e9, e2eTrace, spanFE)
	post(t, logs.URL+"/ingest/jsonl", "application/json", []byte(jl))
	// gateway (Loki JSON): the access log line, plain text with a traceparent.
	lj := fmt.Sprintf(`{"streams":[{"stream":{"service_name":"gateway"},"values":[["%d","GET /cart 502 traceparent=00-%s-%s-01"]]}]}`,
		at(3030).UnixNano(), e2eTrace, spanGW)
	post(t, logs.URL+"/loki/api/v1/push", "application/json", []byte(lj))

	eng, err := analysis.New(st, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := eng.Trace(ctx, schema.TraceID(e2eTrace))
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := json.MarshalIndent(res, "", " ")
	if !res.Failed || res.Origin == nil || res.Suspect == nil {
		t.Fatalf("trace not explained as failed with an origin and a suspect:\n%s", doc)
	}
	if res.Origin.Service != "payment" || res.Origin.Class != schema.KindDBPoolExhaustion {
		t.Errorf("origin = %s/%s, want payment/db-pool-exhaustion\n%s", res.Origin.Service, res.Origin.Class, doc)
	}
	if res.Suspect.Service != "payment" {
		t.Errorf("suspect = %s, want payment\n%s", res.Suspect.Service, doc)
	}
	failed := map[string]bool{}
	for _, c := range res.Cascade {
		failed[c.Service] = true
	}
	for _, svc := range []string{"checkout", "frontend"} {
		if !failed[svc] {
			t.Errorf("%s is not in the cascade\n%s", svc, doc)
		}
	}
	if res.Events < 9 {
		t.Errorf("events = %d, want every record of the four formats (≥ 9)\n%s", res.Events, doc)
	}
}

func post(t *testing.T, url, ctype string, body []byte) {
	t.Helper()
	resp, err := http.Post(url, ctype, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusNoContent {
		t.Fatalf("POST %s: %s", url, resp.Status)
	}
}

func traceID(t *testing.T) pcommon.TraceID {
	var id pcommon.TraceID
	if _, err := hex.Decode(id[:], []byte(e2eTrace)); err != nil {
		t.Fatal(err)
	}
	return id
}

func spanID(s string) pcommon.SpanID {
	var id pcommon.SpanID
	_, _ = hex.Decode(id[:], []byte(s))
	return id
}

func otlpSpans(t *testing.T, at func(int) time.Time) []byte {
	td := ptrace.NewTraces()
	add := func(svc, id, parent, name string, start, end int, status ptrace.StatusCode) {
		rs := td.ResourceSpans().AppendEmpty()
		rs.Resource().Attributes().PutStr("service.name", svc)
		sp := rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty()
		sp.SetTraceID(traceID(t))
		sp.SetSpanID(spanID(id))
		if parent != "" {
			sp.SetParentSpanID(spanID(parent))
		}
		sp.SetName(name)
		sp.SetStartTimestamp(pcommon.NewTimestampFromTime(at(start)))
		sp.SetEndTimestamp(pcommon.NewTimestampFromTime(at(end)))
		sp.Status().SetCode(status)
	}
	add("gateway", spanGW, "", "GET /cart", 0, 3030, ptrace.StatusCodeError)
	add("frontend", spanFE, spanGW, "GET /cart", 2, 3025, ptrace.StatusCodeError)
	add("checkout", spanCO, spanFE, "POST /checkout", 5, 3010, ptrace.StatusCodeError)
	add("payment", spanPAY, spanCO, "POST /charge", 8, 2012, ptrace.StatusCodeError)
	b, err := ptraceotlp.NewExportRequestFromTraces(td).MarshalProto()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func otlpLogs(t *testing.T, at func(int) time.Time) []byte {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "payment")
	lr := rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
	lr.SetTimestamp(pcommon.NewTimestampFromTime(at(2010)))
	lr.SetSeverityNumber(plog.SeverityNumberError)
	lr.SetSeverityText("ERROR")
	lr.Body().SetStr("HikariPool-1 - Connection is not available, request timed out after 2000ms.")
	lr.SetTraceID(traceID(t))
	lr.SetSpanID(spanID(spanPAY))
	b, err := plogotlp.NewExportRequestFromLogs(ld).MarshalProto()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func lokiProto(t *testing.T, at func(int) time.Time) []byte {
	line := fmt.Sprintf("level=error msg=\"call to payment timed out after 3000ms\" trace_id=%s span_id=%s", e2eTrace, spanCO)
	req := push.PushRequest{Streams: []push.Stream{{
		Labels:  `{service_name="checkout", namespace="shop"}`,
		Entries: []push.Entry{{Timestamp: at(3008), Line: line}},
	}}}
	b, err := proto.Marshal(&req)
	if err != nil {
		t.Fatal(err)
	}
	return snappy.Encode(nil, b)
}
