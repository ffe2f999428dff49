package ingest

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/golang/snappy"
	"github.com/grafana/loki/pkg/push"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

// event is one log line of the small test incident, written by each
// format's real encoder.
type event struct {
	svc, level, span, msg string
	at                    time.Duration
}

// incidentBase is when the test incident starts.
var incidentBase = time.Date(2024, 3, 5, 10, 20, 30, 0, time.UTC)

// incidentEvents is a small cascade: the database pool runs out, orders
// fails, the gateway times out.
func incidentEvents() []event {
	return []event{
		{"gateway", "INFO", "1111111111111111", "GET /checkout started", 0},
		{"orders", "INFO", "2222222222222222", "create order 42", 5 * time.Millisecond},
		{"db-proxy", "ERROR", "3333333333333333", "connection pool exhausted after 2000ms (active=50 max=50)", 20 * time.Millisecond},
		{"orders", "ERROR", "2222222222222222", "insert order failed: pool exhausted", 2030 * time.Millisecond},
		{"gateway", "ERROR", "1111111111111111", "upstream orders call exceeded 3000ms", 3001 * time.Millisecond},
	}
}

// traceFor gives each format its own trace id so stored records can be
// told apart: the last hex digit is n.
func traceFor(n int) string { return fmt.Sprintf("%031x%x", 0xabc, n) }

func lokiProtoBody(trace string) []byte {
	req := push.PushRequest{}
	for _, e := range incidentEvents() {
		req.Streams = append(req.Streams, push.Stream{
			Labels: fmt.Sprintf(`{service_name=%q, pod="%s-0"}`, e.svc, e.svc),
			Entries: []push.Entry{{Timestamp: incidentBase.Add(e.at),
				Line: fmt.Sprintf("%s %s trace_id=%s span_id=%s %s", incidentBase.Add(e.at).Format("15:04:05.000"), e.level, trace, e.span, e.msg)}},
		})
	}
	raw, err := req.Marshal()
	if err != nil {
		panic(err)
	}
	return snappy.Encode(nil, raw)
}

func lokiJSONPush(trace string) []byte {
	type stream struct {
		Stream map[string]string `json:"stream"`
		Values [][]any           `json:"values"`
	}
	var body struct {
		Streams []stream `json:"streams"`
	}
	for _, e := range incidentEvents() {
		line, _ := json.Marshal(map[string]string{"level": strings.ToLower(e.level), "msg": e.msg, "traceId": trace, "spanId": e.span})
		body.Streams = append(body.Streams, stream{
			Stream: map[string]string{"app": e.svc},
			Values: [][]any{{fmt.Sprint(incidentBase.Add(e.at).UnixNano()), string(line)}},
		})
	}
	b, _ := json.Marshal(body)
	return b
}

func otlpLogs(trace string) plog.Logs {
	ld := plog.NewLogs()
	for _, e := range incidentEvents() {
		rl := ld.ResourceLogs().AppendEmpty()
		rl.Resource().Attributes().PutStr("service.name", e.svc)
		lr := rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
		lr.SetTimestamp(pcommon.NewTimestampFromTime(incidentBase.Add(e.at)))
		lr.SetSeverityText(e.level)
		if e.level == "ERROR" {
			lr.SetSeverityNumber(plog.SeverityNumberError)
		} else {
			lr.SetSeverityNumber(plog.SeverityNumberInfo)
		}
		lr.Body().SetStr(e.msg)
		lr.SetTraceID(pcommon.TraceID(mustHex16(trace)))
		lr.SetSpanID(pcommon.SpanID(mustHex8(e.span)))
	}
	return ld
}

func otlpLogsProto(trace string) []byte {
	b, err := plogotlp.NewExportRequestFromLogs(otlpLogs(trace)).MarshalProto()
	if err != nil {
		panic(err)
	}
	return b
}

func otlpLogsJSON(trace string) []byte {
	b, err := plogotlp.NewExportRequestFromLogs(otlpLogs(trace)).MarshalJSON()
	if err != nil {
		panic(err)
	}
	return b
}

// otlpTraces is the incident's spans: gateway → orders → db-proxy, the
// database span failing with an exception event.
func otlpTraces(trace string) ptrace.Traces {
	td := ptrace.NewTraces()
	parents := map[string]string{"1111111111111111": "", "2222222222222222": "1111111111111111", "3333333333333333": "2222222222222222"}
	for _, e := range incidentEvents()[:3] {
		rs := td.ResourceSpans().AppendEmpty()
		rs.Resource().Attributes().PutStr("service.name", e.svc)
		rs.Resource().Attributes().PutStr("service.version", "1.2.3")
		sp := rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty()
		sp.SetTraceID(pcommon.TraceID(mustHex16(trace)))
		sp.SetSpanID(pcommon.SpanID(mustHex8(e.span)))
		if p := parents[e.span]; p != "" {
			sp.SetParentSpanID(pcommon.SpanID(mustHex8(p)))
		}
		sp.SetName("call " + e.svc)
		sp.SetKind(ptrace.SpanKindServer)
		sp.SetStartTimestamp(pcommon.NewTimestampFromTime(incidentBase.Add(e.at)))
		sp.SetEndTimestamp(pcommon.NewTimestampFromTime(incidentBase.Add(e.at + 2*time.Second)))
		sp.Attributes().PutInt("http.status_code", 500)
		if e.svc == "db-proxy" {
			sp.Status().SetCode(ptrace.StatusCodeError)
			ev := sp.Events().AppendEmpty()
			ev.SetName("exception")
			ev.Attributes().PutStr("exception.type", "PoolExhaustedException")
			ev.Attributes().PutStr("exception.message", e.msg)
		}
	}
	return td
}

func otlpTracesProto(trace string) []byte {
	b, err := ptraceotlp.NewExportRequestFromTraces(otlpTraces(trace)).MarshalProto()
	if err != nil {
		panic(err)
	}
	return b
}

func otlpTracesJSON(trace string) []byte {
	b, err := ptraceotlp.NewExportRequestFromTraces(otlpTraces(trace)).MarshalJSON()
	if err != nil {
		panic(err)
	}
	return b
}

func jsonlBody(trace string) []byte {
	var sb strings.Builder
	for _, e := range incidentEvents() {
		b, _ := json.Marshal(map[string]any{"time": incidentBase.Add(e.at).Format(time.RFC3339Nano), "level": e.level,
			"msg": e.msg, "trace_id": trace, "span_id": e.span, "service": e.svc})
		sb.Write(b)
		sb.WriteByte('\n')
	}
	return []byte(sb.String())
}

func mustHex16(s string) (b [16]byte) {
	if _, err := hex.Decode(b[:], []byte(s)); err != nil {
		panic(err)
	}
	return b
}

func mustHex8(s string) (b [8]byte) {
	if _, err := hex.Decode(b[:], []byte(s)); err != nil {
		panic(err)
	}
	return b
}
