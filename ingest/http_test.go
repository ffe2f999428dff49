package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/faultline/faultline/schema"
	"github.com/golang/snappy"
	"github.com/klauspost/compress/gzip"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

type testServer struct {
	srv        *Server
	main, otlp *httptest.Server
}

func newTestServer(t *testing.T, lim Limits, sink Sink) *testServer {
	t.Helper()
	s := NewServer(ServerConfig{Decoder: NewDecoder(DecoderConfig{Limits: lim})}, sink, nil)
	ts := &testServer{srv: s, main: httptest.NewServer(s.Handler()), otlp: httptest.NewServer(s.OTLPHandler())}
	t.Cleanup(func() { ts.main.Close(); ts.otlp.Close() })
	return ts
}

func post(t *testing.T, url, ctype, enc string, body []byte) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", ctype)
	if enc != "" {
		req.Header.Set("Content-Encoding", enc)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

func decodeReply(t *testing.T, b []byte) pushReply {
	t.Helper()
	var r pushReply
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("reply %q: %v", b, err)
	}
	return r
}

func TestHTTPFormats(t *testing.T) {
	sink := &fakeSink{}
	ts := newTestServer(t, Limits{}, sink)
	cases := []struct {
		name, url, ctype, enc string
		body                  []byte
	}{
		{"loki-protobuf", ts.main.URL + "/loki/api/v1/push", "application/x-protobuf", "", lokiProtoBody(traceFor(1))},
		{"loki-json-gzip", ts.main.URL + "/loki/api/v1/push", "application/json", "gzip", gz(lokiJSONPush(traceFor(2)))},
		{"otlp-logs-protobuf", ts.otlp.URL + "/v1/logs", "application/x-protobuf", "", otlpLogsProto(traceFor(3))},
		{"otlp-logs-json-gzip", ts.otlp.URL + "/v1/logs", "application/json", "gzip", gz(otlpLogsJSON(traceFor(4)))},
		{"jsonl", ts.main.URL + "/ingest/jsonl", "application/x-ndjson", "", jsonlBody(traceFor(5))},
	}
	for i, c := range cases {
		before := len(sink.records())
		resp, body := post(t, c.url, c.ctype, c.enc, c.body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: status %d: %s", c.name, resp.StatusCode, body)
		}
		checkIncident(t, c.name, traceFor(i+1), sink.records()[before:])
		if strings.HasPrefix(c.name, "otlp") && c.ctype == "application/x-protobuf" {
			r := plogotlp.NewExportResponse()
			if err := r.UnmarshalProto(body); err != nil || r.PartialSuccess().RejectedLogRecords() != 0 {
				t.Errorf("%s: OTLP response %q: %v", c.name, body, err)
			}
		} else if !strings.HasPrefix(c.name, "otlp") && decodeReply(t, body).Accepted != 5 {
			t.Errorf("%s: reply %s", c.name, body)
		}
	}
	resp, body := post(t, ts.otlp.URL+"/v1/traces", "application/x-protobuf", "", otlpTracesProto(traceFor(6)))
	tr := ptraceotlp.NewExportResponse()
	if resp.StatusCode != 200 || tr.UnmarshalProto(body) != nil {
		t.Fatalf("traces: %d %q", resp.StatusCode, body)
	}
	if n := countType(sink.records(), schema.TypeSpan); n != 3 {
		t.Errorf("%d spans stored, want 3", n)
	}
}

func countType(recs []schema.Record, typ schema.RecordType) int {
	n := 0
	for _, r := range recs {
		if r.Type == typ {
			n++
		}
	}
	return n
}

func TestHTTPOTLPPartialSuccess(t *testing.T) {
	sink := &fakeSink{}
	ts := newTestServer(t, Limits{}, sink)
	ld := plog.NewLogs()
	lrs := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords()
	good := lrs.AppendEmpty()
	good.Body().SetStr("fine")
	good.SetTimestamp(pcommon.NewTimestampFromTime(incidentBase))
	bad := lrs.AppendEmpty()
	bad.Body().SetStr("bad")
	bad.Attributes().PutStr("trace_id", "not-an-id")
	for _, enc := range []string{"application/json", "application/x-protobuf"} {
		req := plogotlp.NewExportRequestFromLogs(ld)
		var body []byte
		if enc == "application/json" {
			body, _ = req.MarshalJSON()
		} else {
			body, _ = req.MarshalProto()
		}
		resp, out := post(t, ts.otlp.URL+"/v1/logs", enc, "", body)
		r := plogotlp.NewExportResponse()
		var err error
		if enc == "application/json" {
			err = r.UnmarshalJSON(out)
		} else {
			err = r.UnmarshalProto(out)
		}
		if resp.StatusCode != 200 || err != nil || r.PartialSuccess().RejectedLogRecords() != 1 ||
			!strings.Contains(r.PartialSuccess().ErrorMessage(), string(ReasonBadTraceID)) {
			t.Errorf("%s: %d %q %v", enc, resp.StatusCode, out, err)
		}
	}
	if n := len(sink.records()); n != 2 {
		t.Errorf("%d records stored, want the 2 good ones", n)
	}
}

func TestHTTPErrors(t *testing.T) {
	sink := &fakeSink{}
	ts := newTestServer(t, Limits{MaxBodyBytes: 1 << 20}, sink)
	big := bytes.Repeat([]byte(`{"msg":"padding padding padding"}`+"\n"), 40000) // ~1.3 MB
	cases := []struct {
		name, url, ctype, enc string
		body                  []byte
		want                  int
	}{
		{"gzip bomb", ts.main.URL + "/ingest/jsonl", "application/json", "gzip", gz(big), 413},
		{"plain too big", ts.main.URL + "/ingest/jsonl", "application/json", "", big, 413},
		{"snappy over cap", ts.main.URL + "/loki/api/v1/push", "application/x-protobuf", "", snappy.Encode(nil, big), 413},
		{"bad snappy", ts.main.URL + "/loki/api/v1/push", "application/x-protobuf", "", []byte("not snappy"), 400},
		{"bad gzip", ts.main.URL + "/ingest/jsonl", "application/json", "gzip", []byte("not gzip"), 400},
		{"unknown encoding", ts.main.URL + "/ingest/jsonl", "application/json", "br", []byte("{}"), 400},
		{"nothing usable", ts.main.URL + "/ingest/jsonl", "application/json", "", []byte("nope\n{]\n"), 400},
		{"bad loki json", ts.main.URL + "/loki/api/v1/push", "application/json", "", []byte(`{"streams":[`), 400},
		{"bad otlp", ts.otlp.URL + "/v1/logs", "application/x-protobuf", "", []byte{0xff, 0x01}, 400},
		{"wrong type", ts.otlp.URL + "/v1/traces", "text/plain", "", []byte("x"), 415},
		{"empty push", ts.main.URL + "/loki/api/v1/push", "application/json", "", []byte(`{"streams":[]}`), 200},
	}
	for _, c := range cases {
		resp, body := post(t, c.url, c.ctype, c.enc, c.body)
		if resp.StatusCode != c.want {
			t.Errorf("%s: status %d, want %d (%s)", c.name, resp.StatusCode, c.want, body)
		}
	}
	if n := len(sink.recs); n != 0 {
		t.Errorf("%d records stored from bad requests", n)
	}
	resp, _ := http.Get(ts.main.URL + "/loki/api/v1/push")
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET push: %d", resp.StatusCode)
	}
}

// blockingSink blocks every write until release is closed.
type blockingSink struct {
	entered chan struct{}
	release chan struct{}
	once    sync.Once
}

func (b *blockingSink) WriteBatch(ctx context.Context, _ []schema.Record) error {
	b.once.Do(func() { close(b.entered) })
	<-b.release
	return nil
}

func TestHTTPBackPressure(t *testing.T) {
	bs := &blockingSink{entered: make(chan struct{}), release: make(chan struct{})}
	ts := newTestServer(t, Limits{MaxInFlight: 1}, bs)
	done := make(chan int)
	go func() {
		resp, _ := post(t, ts.main.URL+"/ingest/jsonl", "application/json", "", jsonlBody(traceFor(1)))
		done <- resp.StatusCode
	}()
	<-bs.entered
	resp, body := post(t, ts.main.URL+"/ingest/jsonl", "application/json", "", jsonlBody(traceFor(2)))
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Errorf("second request while full: %d Retry-After=%q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	if r := decodeReply(t, body); r.Accepted != 0 {
		t.Errorf("a 429 reports %d accepted", r.Accepted)
	}
	// Refused before decoding, a request still counts under its format.
	if resp, _ := post(t, ts.otlp.URL+"/v1/logs", "application/x-protobuf", "", []byte{}); resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("OTLP request while full: %d", resp.StatusCode)
	}
	mresp, _ := http.Get(ts.main.URL + "/metrics")
	m, _ := io.ReadAll(mresp.Body)
	for _, want := range []string{`faultline_ingest_requests_total{code="429",format="jsonl"} 1`,
		`faultline_ingest_requests_total{code="429",format="otlp-logs-protobuf"} 1`} {
		if !strings.Contains(string(m), want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	close(bs.release)
	if code := <-done; code != 200 {
		t.Errorf("first request: %d", code)
	}
}

func TestHTTPSinkFailure(t *testing.T) {
	sink := &fakeSink{err: errors.New("disk full at /secret/path")}
	ts := newTestServer(t, Limits{}, sink)
	resp, body := post(t, ts.main.URL+"/ingest/jsonl", "application/json", "", jsonlBody(traceFor(1)))
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("status %d Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if r := decodeReply(t, body); r.Accepted != 0 || strings.Contains(string(body), "secret") {
		t.Errorf("503 reply %s", body)
	}
}

type panicSink struct{}

func (panicSink) WriteBatch(context.Context, []schema.Record) error { panic("boom") }

func TestHTTPRecoversPanic(t *testing.T) {
	ts := newTestServer(t, Limits{}, panicSink{})
	for i := 0; i < 2; i++ { // the server survives and the slot is freed
		resp, _ := post(t, ts.main.URL+"/ingest/jsonl", "application/json", "", jsonlBody(traceFor(1)))
		if resp.StatusCode != http.StatusInternalServerError {
			t.Errorf("status %d, want 500", resp.StatusCode)
		}
	}
}

func TestHTTPHealthAndMetrics(t *testing.T) {
	sink := &fakeSink{}
	ts := newTestServer(t, Limits{}, sink)
	post(t, ts.main.URL+"/ingest/jsonl", "application/json", "", []byte("{\"msg\":\"a\"}\nbad\n"))
	resp, _ := http.Get(ts.main.URL + "/healthz")
	if resp.StatusCode != 200 {
		t.Errorf("healthz %d", resp.StatusCode)
	}
	resp, _ = http.Get(ts.main.URL + "/metrics")
	b, _ := io.ReadAll(resp.Body)
	for _, want := range []string{
		`faultline_ingest_records_accepted_total{format="jsonl"} 1`,
		`faultline_ingest_records_rejected_total{format="jsonl",reason="bad_json"} 1`,
		`faultline_ingest_batch_write_seconds_count 1`,
		`faultline_ingest_requests_total{code="200",format="jsonl"} 1`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	down := NewServer(ServerConfig{Health: func(context.Context) error { return errors.New("no") }}, sink, nil)
	rec := httptest.NewRecorder()
	down.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/healthz", nil))
	if rec.Code != http.StatusServiceUnavailable {
		t.Errorf("unhealthy store: %d", rec.Code)
	}
}

// A push sent to the other listener is a 404 that names the right one,
// and stores nothing.
func TestPushOnTheWrongListener(t *testing.T) {
	sink := &fakeSink{}
	ts := newTestServer(t, Limits{}, sink)
	for _, c := range []struct{ url, want string }{
		{ts.main.URL + "/v1/logs", "--otlp-listen"},
		{ts.main.URL + "/v1/traces", ":4318"},
		{ts.otlp.URL + "/loki/api/v1/push", "--listen"},
		{ts.otlp.URL + "/ingest/jsonl", ":3100"},
	} {
		resp, body := post(t, c.url, "application/json", "", []byte(`{"service":"a","msg":"x"}`))
		if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), c.want) {
			t.Errorf("POST %s: %d %q, want 404 naming %s", c.url, resp.StatusCode, body, c.want)
		}
	}
	if n := len(sink.recs); n != 0 {
		t.Errorf("%d records stored from misdirected pushes", n)
	}
}
