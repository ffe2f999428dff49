package ingest

import (
	"fmt"
	"strings"
	"testing"
)

func TestZZProbe(t *testing.T) {
	var sb strings.Builder
	sb.WriteString(`{"msg":"m"`)
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&sb, `,"k%d":"v"`, i)
	}
	sb.WriteString("}\n")
	ts := newTestServer(t, Limits{}, &fakeSink{})
	resp, body := post(t, ts.main.URL+"/ingest/jsonl", "application/json", "", []byte(sb.String()))
	fmt.Println(resp.StatusCode, string(body))
	lk := `{"streams":[{"stream":{"service":"a"},"values":[["1700000000000000000",` + fmt.Sprintf("%q", strings.TrimSpace(sb.String())) + `]]}]}`
	resp, body = post(t, ts.main.URL+"/loki/api/v1/push", "application/json", "", []byte(lk))
	fmt.Println(resp.StatusCode, string(body))
	resp, body = post(t, ts.main.URL+"/loki/api/v1/push", "application/json", "", []byte(""))
	fmt.Println(resp.StatusCode, string(body))
	resp, body = post(t, ts.main.URL+"/loki/api/v1/push", "application/json", "", gz([]byte(lk)))
	fmt.Println(resp.StatusCode, string(body))
	resp, body = post(t, ts.main.URL+"/ingest/jsonl", "application/json", "", []byte(""))
	fmt.Println(resp.StatusCode, string(body))
	resp, body = post(t, ts.otlp.URL+"/v1/logs", "application/json", "", []byte("[1]"))
	fmt.Println(resp.StatusCode, string(body))
	resp, body = post(t, ts.otlp.URL+"/v1/logs", "application/x-protobuf", "", []byte{0xff,0xff,0xff})
	fmt.Println(resp.StatusCode, string(body))
	resp, body = post(t, ts.otlp.URL+"/v1/logs", "application/json", "", []byte(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"body":{"stringValue":"ok"}},{"traceId":"xyz","body":{"stringValue":"bad"}}]}]}]}`))
	fmt.Println(resp.StatusCode, string(body))
}
