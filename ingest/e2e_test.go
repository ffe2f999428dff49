package ingest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store/sqlite"
)

// TestEndToEndSQLite serves the real handlers on loopback ports in front of
// a real SQLite store file, sends the same incident through every format
// with the real encoders and reads it back from the store.
func TestEndToEndSQLite(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "e2e.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	srv := NewServer(ServerConfig{}, db, nil)
	main, otlp := httptest.NewServer(srv.Handler()), httptest.NewServer(srv.OTLPHandler())
	defer main.Close()
	defer otlp.Close()
	sends := []struct {
		name, url, ctype, enc string
		body                  []byte
	}{
		{"loki-protobuf", main.URL + "/loki/api/v1/push", "application/x-protobuf", "", lokiProtoBody(traceFor(1))},
		{"loki-json", main.URL + "/loki/api/v1/push", "application/json", "gzip", gz(lokiJSONPush(traceFor(2)))},
		{"otlp-logs-protobuf", otlp.URL + "/v1/logs", "application/x-protobuf", "", otlpLogsProto(traceFor(3))},
		{"jsonl", main.URL + "/ingest/jsonl", "application/x-ndjson", "", jsonlBody(traceFor(4))},
		{"otlp-traces-protobuf", otlp.URL + "/v1/traces", "application/x-protobuf", "", otlpTracesProto(traceFor(4))},
	}
	for _, s := range sends {
		if resp, body := post(t, s.url, s.ctype, s.enc, s.body); resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %s", s.name, resp.StatusCode, body)
		}
	}
	for i := 1; i <= 4; i++ {
		var logs []schema.Record
		spans := 0
		for r, err := range db.TraceRecords(ctx, schema.TraceID(traceFor(i)), 0) {
			if err != nil {
				t.Fatal(err)
			}
			if r.Type == schema.TypeSpan {
				spans++
				continue
			}
			logs = append(logs, r)
		}
		checkIncident(t, sends[i-1].name+" stored", traceFor(i), logs)
		if i == 4 && spans != 3 {
			t.Errorf("%d spans stored with trace %s, want 3", spans, traceFor(i))
		}
	}
}
