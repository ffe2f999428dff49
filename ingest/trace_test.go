package ingest

import (
	"net/http/httptest"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// TestRequestTracing checks each ingest request makes one span carrying
// the format, the counts and the status code.
func TestRequestTracing(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	srv := NewServer(ServerConfig{Tracer: tp}, &fakeSink{}, nil)
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	post(t, ts.URL+"/ingest/jsonl", "application/json", "", []byte("{\"msg\":\"a\"}\nbad\n"))
	spans := rec.Ended()
	if len(spans) != 1 {
		t.Fatalf("%d spans, want 1", len(spans))
	}
	got := map[attribute.Key]attribute.Value{}
	for _, kv := range spans[0].Attributes() {
		got[kv.Key] = kv.Value
	}
	if got["ingest.format"].AsString() != "jsonl" || got["ingest.accepted"].AsInt64() != 1 ||
		got["ingest.rejected"].AsInt64() != 1 || got["http.response.status_code"].AsInt64() != 200 {
		t.Errorf("span %q attributes %v", spans[0].Name(), got)
	}
}
