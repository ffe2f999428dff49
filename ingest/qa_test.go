package ingest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/protobuf/proto"
)

// leaks are fragments of parser internals no answer may show.
var leaks = []string{"UnmarshalJSONIter", "ReadObject", "wireType", "proto:", "invalid character", "\\x1f", "unexpected EOF", "gzip:", "snappy", "malformed body"}

func checkNoLeak(t *testing.T, label string, body []byte) {
	t.Helper()
	for _, l := range leaks {
		if l == "snappy" && bytes.Contains(body, []byte("snappy-compressed")) {
			continue
		}
		if bytes.Contains(body, []byte(l)) {
			t.Errorf("%s: answer leaks %q: %s", label, l, body)
		}
	}
}

// TestOTLPJSONBadIDOneRecord: one record with a bad id is rejected, the
// others of the body are stored (pdata alone fails the whole body).
func TestOTLPJSONBadIDOneRecord(t *testing.T) {
	sink := &fakeSink{}
	ts := newTestServer(t, Limits{}, sink)
	logs := `{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"api"}}]},"scopeLogs":[{"logRecords":[
		{"timeUnixNano":"1709634030000000000","traceId":"` + tid + `","body":{"stringValue":"good one"}},
		{"timeUnixNano":"1709634030000000000","traceId":"xyz","body":{"stringValue":"bad trace"}},
		{"timeUnixNano":"1709634030000000000","spanId":12,"body":{"stringValue":"bad span"}},
		{"timeUnixNano":"1709634030000000000","trace_id":"` + strings.ToUpper(tid) + `","body":{"stringValue":"good two"}}]}]}]}`
	resp, out := post(t, ts.otlp.URL+"/v1/logs", "application/json", "", []byte(logs))
	r := plogotlp.NewExportResponse()
	if resp.StatusCode != 200 || r.UnmarshalJSON(out) != nil || r.PartialSuccess().RejectedLogRecords() != 2 ||
		!strings.Contains(r.PartialSuccess().ErrorMessage(), "bad_trace_id: 1") || !strings.Contains(r.PartialSuccess().ErrorMessage(), "bad_span_id: 1") {
		t.Fatalf("logs: %d %s", resp.StatusCode, out)
	}
	recs := sink.records()
	if len(recs) != 2 || recs[0].Body != "good one" || recs[1].Body != "good two" || recs[1].TraceID != tid {
		t.Errorf("stored %+v", recs)
	}

	traces := `{"resourceSpans":[{"scopeSpans":[{"spans":[
		{"traceId":"` + tid + `","spanId":"1111111111111111","name":"ok","startTimeUnixNano":"1709634030000000000",
		 "links":[{"traceId":"nope","spanId":"2222222222222222"}]},
		{"traceId":"` + tid + `","spanId":"1111111111111112","parentSpanId":"short","name":"bad parent","startTimeUnixNano":"1709634030000000000"},
		{"traceId":"` + tid[:30] + `","spanId":"1111111111111113","name":"bad trace","startTimeUnixNano":"1709634030000000000"}]}]}]}`
	sink = &fakeSink{}
	ts = newTestServer(t, Limits{}, sink)
	resp, out = post(t, ts.otlp.URL+"/v1/traces", "application/json", "", []byte(traces))
	tr := ptraceotlp.NewExportResponse()
	if resp.StatusCode != 200 || tr.UnmarshalJSON(out) != nil || tr.PartialSuccess().RejectedSpans() != 2 {
		t.Fatalf("traces: %d %s", resp.StatusCode, out)
	}
	if recs := sink.records(); len(recs) != 1 || recs[0].Name != "ok" || recs[0].SpanID != "1111111111111111" {
		t.Errorf("stored spans %+v", recs)
	}
}

func TestScrubOTLPIDs(t *testing.T) {
	good := otlpLogsJSON(traceFor(1))
	if out, bad := scrubOTLPIDs(good, "logs"); !bytes.Equal(out, good) || bad != nil {
		t.Errorf("a good body was changed: %v", bad)
	}
	// ids outside records (an attribute value, a key in a string) are not records' ids
	in := []byte(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"body":{"stringValue":"\"traceId\":\"x\""}},{"traceId":"zz"}]}]}]}`)
	out, bad := scrubOTLPIDs(in, "logs")
	if len(bad) != 1 || bad[1] != ReasonBadTraceID || !bytes.Contains(out, []byte(`{"traceId":""}`)) {
		t.Errorf("scrub: %v %s", bad, out)
	}
	for _, broken := range []string{`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"traceId":"zz"`, `{"traceId":"x"}}}`, `[}`, `{"a":"traceId":"x"]`} {
		scrubOTLPIDs([]byte(broken), "logs") // must not panic or loop
	}
}

// TestHTTPErrorsArePlain: errors read as one sentence, without parser
// internals, and OTLP errors come in the request's encoding.
func TestHTTPErrorsArePlain(t *testing.T) {
	ts := newTestServer(t, Limits{}, &fakeSink{})
	push := ts.main.URL + "/loki/api/v1/push"
	cases := []struct {
		name, url, ctype, enc string
		body                  []byte
		code                  int
		want                  string
	}{
		{"loki gzip without header", push, "application/json", "", gz(lokiJSONPush(tid)), 400, "set Content-Encoding: gzip"},
		{"loki json in protobuf", push, "application/x-protobuf", "", lokiJSONPush(tid), 400, "set Content-Type: application/json"},
		{"loki bad json", push, "application/json", "", []byte(`{"streams":[}`), 400, "invalid JSON at byte"},
		{"loki wrong shape", push, "application/json", "", []byte(`{"streams":"x"}`), 400, `field "streams" must be an array`},
		{"jsonl gzip without header", ts.main.URL + "/ingest/jsonl", "application/json", "", gz(jsonlBody(tid)), 400, "set Content-Encoding: gzip"},
		{"corrupt gzip", ts.main.URL + "/ingest/jsonl", "application/json", "gzip", []byte("plain"), 400, "not valid gzip"},
		{"otlp json wrong shape", ts.otlp.URL + "/v1/logs", "application/json", "", []byte(`{"resourceLogs":[1]}`), 400, "body is not valid OTLP/JSON"},
		{"otlp json array", ts.otlp.URL + "/v1/logs", "application/json", "", []byte(`[1]`), 400, "body is not valid OTLP/JSON: it must be a JSON object"},
		{"otlp bad protobuf", ts.otlp.URL + "/v1/traces", "application/x-protobuf", "", []byte{0x0f, 0xff, 0x01}, 400, "not a valid OTLP/protobuf"},
		{"otlp gzip without header", ts.otlp.URL + "/v1/logs", "application/x-protobuf", "", gz(otlpLogsProto(tid)), 400, "set Content-Encoding: gzip"},
	}
	for _, c := range cases {
		resp, out := post(t, c.url, c.ctype, c.enc, c.body)
		msg := string(out)
		switch {
		case strings.HasPrefix(c.url, ts.otlp.URL) && c.ctype == "application/x-protobuf":
			var st spb.Status
			if resp.Header.Get("Content-Type") != "application/x-protobuf" || proto.Unmarshal(out, &st) != nil || st.Code != 3 {
				t.Errorf("%s: not a google.rpc.Status in protobuf: %q %q", c.name, resp.Header.Get("Content-Type"), out)
			}
			msg = st.Message
		case strings.HasPrefix(c.url, ts.otlp.URL):
			var st struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			}
			if json.Unmarshal(out, &st) != nil || st.Code != 3 {
				t.Errorf("%s: not a JSON Status: %s", c.name, out)
			}
			msg = st.Message
		default:
			msg = decodeReply(t, out).Error
		}
		if resp.StatusCode != c.code || !strings.Contains(msg, c.want) || strings.Count(msg, ". ") > 0 {
			t.Errorf("%s: %d %q, want %d and %q", c.name, resp.StatusCode, msg, c.code, c.want)
		}
		checkNoLeak(t, c.name, out)
	}
}

// TestHTTPEmptyBody: an empty body is nothing usable on every endpoint.
func TestHTTPEmptyBody(t *testing.T) {
	ts := newTestServer(t, Limits{}, &fakeSink{})
	for _, c := range []struct{ url, ctype, enc string }{
		{ts.main.URL + "/loki/api/v1/push", "application/json", ""},
		{ts.main.URL + "/loki/api/v1/push", "application/x-protobuf", ""},
		{ts.main.URL + "/ingest/jsonl", "application/x-ndjson", ""},
		{ts.main.URL + "/ingest/jsonl", "application/x-ndjson", "gzip"},
		{ts.otlp.URL + "/v1/logs", "application/json", ""},
		{ts.otlp.URL + "/v1/logs", "application/x-protobuf", ""},
		{ts.otlp.URL + "/v1/traces", "application/json", ""},
	} {
		body := []byte(" \n")
		if c.enc == "gzip" {
			body = gz(nil)
		}
		resp, out := post(t, c.url, c.ctype, c.enc, body)
		if resp.StatusCode != 400 || !bytes.Contains(out, []byte("the body is empty")) {
			t.Errorf("%s %s: %d %q", c.url, c.ctype, resp.StatusCode, out)
		}
	}
}

// TestBOM: a leading UTF-8 byte order mark does not hide JSON.
func TestBOM(t *testing.T) {
	bom := string(utf8BOM)
	if f := DetectFormat([]byte(bom + `{"msg":"x"}`)); f != FormatJSONLines {
		t.Errorf("DetectFormat with BOM = %s", f)
	}
	sink := &fakeSink{}
	st, f, err := NewLoader(newTestDecoder(t), sink, nil).Load(context.Background(), "app.jsonl", strings.NewReader(bom+`{"msg":"x","level":"error"}`+"\n"))
	if err != nil || f != FormatJSONLines || st.Accepted != 1 || sink.records()[0].Body != "x" {
		t.Errorf("load with BOM: %v %s %+v", err, f, st)
	}
	ts := newTestServer(t, Limits{}, &fakeSink{})
	for url, body := range map[string][]byte{
		ts.main.URL + "/loki/api/v1/push": lokiJSONPush(tid),
		ts.main.URL + "/ingest/jsonl":     jsonlBody(tid),
		ts.otlp.URL + "/v1/logs":          otlpLogsJSON(tid),
	} {
		if resp, out := post(t, url, "application/json", "", append([]byte(bom), body...)); resp.StatusCode != 200 {
			t.Errorf("%s with BOM: %d %s", url, resp.StatusCode, out)
		}
	}
}

func TestLoaderRefusesBinary(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	bin := make([]byte, 4096)
	for i := range bin {
		bin[i] = byte(rng.UintN(256))
	}
	for name, data := range map[string][]byte{"binary.bin": bin, "nul.log": []byte("hello\x00world\n"), "binary.gz": gz(bin)} {
		sink := &fakeSink{}
		_, _, err := NewLoader(newTestDecoder(t), sink, nil).Load(context.Background(), name, bytes.NewReader(data))
		if !errors.Is(err, ErrNotText) || len(sink.records()) != 0 || !strings.Contains(err.Error(), "not a text file") {
			t.Errorf("%s: %v, %d stored", name, err, len(sink.records()))
		}
	}
	latin1 := []byte("2024-03-05 10:20:30 ERROR caf\xe9 cr\xe8me br\xfbl\xe9e\n")
	if _, _, err := NewLoader(newTestDecoder(t), &fakeSink{}, nil).Load(context.Background(), "latin1.log", bytes.NewReader(latin1)); err != nil {
		t.Errorf("a text file with a few Latin-1 bytes refused: %v", err)
	}
}

// TestCheckText: the exported check refuses what the loader refuses, keeps
// text (and a few Latin-1 bytes) readable, and drops a byte order mark.
func TestCheckText(t *testing.T) {
	for name, data := range map[string]string{"nul": "hello\x00world\n", "random": "\x8f\x01\xfe\x02\x9c\x03\xff\x04"} {
		if err := CheckText(bufio.NewReader(strings.NewReader(data))); !errors.Is(err, ErrNotText) {
			t.Errorf("%s: %v, want ErrNotText", name, err)
		}
	}
	for _, data := range []string{"", "2024-03-05 10:20:30 ERROR caf\xe9 cr\xe8me br\xfbl\xe9e\n", string(utf8BOM) + "level=error msg=x\n"} {
		br := bufio.NewReader(strings.NewReader(data))
		if err := CheckText(br); err != nil {
			t.Errorf("%q refused: %v", data, err)
		}
		if rest, _ := io.ReadAll(br); bytes.HasPrefix(rest, utf8BOM) || len(rest) < len(data)-len(utf8BOM) {
			t.Errorf("%q: %q left to read, want all of it but a byte order mark", data, rest)
		}
	}
}

// TestTruncatedCounted: a record with more attributes than MaxAttrs is
// kept, cut, and counted as truncated, in every format.
func TestTruncatedCounted(t *testing.T) {
	const n = 10
	lim := Limits{MaxAttrs: 3}
	var jl strings.Builder
	jl.WriteString(`{"msg":"m"`)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&jl, `,"k%d":"v"`, i)
	}
	jl.WriteString("}")
	ld := plog.NewLogs()
	lr := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
	lr.Body().SetStr("m")
	td := ptrace.NewTraces()
	sp := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	sp.SetTraceID(pcommon.TraceID{1})
	sp.SetSpanID(pcommon.SpanID{1})
	sp.SetStartTimestamp(pcommon.NewTimestampFromTime(incidentBase))
	for i := 0; i < n; i++ {
		lr.Attributes().PutStr(fmt.Sprintf("k%d", i), "v")
		sp.Attributes().PutStr(fmt.Sprintf("k%d", i), "v")
	}
	logsJSON, _ := plogotlp.NewExportRequestFromLogs(ld).MarshalJSON()
	tracesJSON, _ := ptraceotlp.NewExportRequestFromTraces(td).MarshalJSON()
	lokiJSON, _ := json.Marshal(map[string]any{"streams": []any{map[string]any{"stream": map[string]string{"service": "a"},
		"values": [][]string{{"1709634030000000000", jl.String()}}}}})
	dc := NewDecoder(DecoderConfig{Limits: lim})
	for name, decode := range map[string]func(*Batch) error{
		"jsonl":       func(b *Batch) error { dc.JSONLines([]byte(jl.String()), b); return nil },
		"text":        func(b *Batch) error { dc.TextLines([]byte(jl.String()), b); return nil },
		"loki-json":   func(b *Batch) error { return dc.LokiJSON(lokiJSON, b) },
		"otlp-logs":   func(b *Batch) error { return dc.OTLPLogsJSON(logsJSON, b) },
		"otlp-traces": func(b *Batch) error { return dc.OTLPTracesJSON(tracesJSON, b) },
	} {
		b := NewBatch(lim)
		if err := decode(b); err != nil || len(b.Records) != 1 || len(b.Records[0].Attrs) > 3 || b.Stats.Truncated != 1 {
			t.Errorf("%s: %v %+v", name, err, b.Stats)
		}
	}
	// the HTTP answer, the load stats and /metrics report it too
	ts := newTestServer(t, lim, &fakeSink{})
	_, out := post(t, ts.main.URL+"/ingest/jsonl", "application/json", "", []byte(jl.String()))
	if r := decodeReply(t, out); r.Truncated != 1 {
		t.Errorf("reply %s", out)
	}
	st, _, _ := NewLoader(dc, &fakeSink{}, nil).Load(context.Background(), "x.jsonl", strings.NewReader(jl.String()+"\n"+jl.String()))
	if st.Truncated != 2 {
		t.Errorf("load stats %+v", st)
	}
	if m := scrape(t, ts.main.URL); !strings.Contains(m, `faultline_ingest_records_truncated_total{format="jsonl"} 1`) {
		t.Errorf("metrics lack the truncated count")
	}
}

func scrape(t *testing.T, base string) string {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// statusSink is a Sink with a background writer whose status the test sets.
type statusSink struct {
	fakeSink
	st WriterStatus
}

func (s *statusSink) IngestWriterStatus() WriterStatus { return s.st }

func TestWriterStatus(t *testing.T) {
	sink := &statusSink{st: WriterStatus{Breaker: "closed", Healthy: true, SpoolMaxBytes: 1 << 30, Inserted: 7}}
	srv := NewServer(ServerConfig{}, sink, nil)
	h := srv.Handler()
	get := func(path string) (int, string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		return rec.Code, rec.Body.String()
	}
	if code, _ := get("/healthz"); code != 200 {
		t.Errorf("healthy writer: %d", code)
	}
	sink.st = WriterStatus{Breaker: "open", ConsecutiveFailures: 5, SpoolBatches: 3, SpoolBytes: 4096, SpoolMaxBytes: 1 << 30, Spooled: 12}
	if code, body := get("/healthz"); code != 503 || !strings.Contains(body, "breaker open") || !strings.Contains(body, "3 batches") {
		t.Errorf("unhealthy writer: %d %q", code, body)
	}
	_, m := get("/metrics")
	for _, want := range []string{
		`faultline_store_writer_breaker_state{state="open"} 1`,
		`faultline_store_writer_breaker_state{state="closed"} 0`,
		`faultline_store_writer_healthy 0`,
		`faultline_store_writer_spool_bytes 4096`,
		`faultline_store_writer_spool_batches 3`,
		`faultline_store_writer_consecutive_failures 5`,
		`faultline_store_writer_records_total{outcome="spooled"} 12`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	// a sink without a writer exposes none of it
	if m := scrape(t, newTestServer(t, Limits{}, &fakeSink{}).main.URL); strings.Contains(m, "faultline_store_writer") {
		t.Errorf("writer metrics without a writer")
	}
}

func TestStoreBusyIs503(t *testing.T) {
	for _, sentinel := range []error{ErrStoreFull, ErrStoreUnavailable} {
		sink := &fakeSink{err: fmt.Errorf("cannot write 5 records: %w: %w", sentinel, errors.New("dial tcp 10.0.0.1:9000: refused"))}
		ts := newTestServer(t, Limits{}, sink)
		resp, out := post(t, ts.main.URL+"/ingest/jsonl", "application/json", "", jsonlBody(tid))
		if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" || bytes.Contains(out, []byte("10.0.0.1")) || !bytes.Contains(out, []byte("retry later")) {
			t.Errorf("%v: %d %q %s", sentinel, resp.StatusCode, resp.Header.Get("Retry-After"), out)
		}
		resp, out = post(t, ts.otlp.URL+"/v1/logs", "application/x-protobuf", "", otlpLogsProto(tid))
		var st spb.Status
		if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" || proto.Unmarshal(out, &st) != nil || st.Code != 14 {
			t.Errorf("otlp %v: %d %q", sentinel, resp.StatusCode, out)
		}
	}
}

// FuzzScrubOTLPIDs: scrubbing keeps valid JSON valid, and a body it
// changed decodes with pdata whenever only ids were wrong.
func FuzzScrubOTLPIDs(f *testing.F) {
	f.Add([]byte(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"traceId":"xyz","body":{"stringValue":"a"}},{"spanId":"00"}]}]}]}`), false)
	f.Add([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":1,"links":[{"spanId":"q"}]}]}]}]}`), true)
	f.Add(otlpLogsJSON(tid), false)
	f.Fuzz(func(t *testing.T, data []byte, traces bool) {
		kind := "logs"
		if traces {
			kind = "spans"
		}
		out, bad := scrubOTLPIDs(data, kind)
		if json.Valid(data) && !json.Valid(out) {
			t.Fatalf("scrubbing %q gave invalid JSON %q", data, out)
		}
		if bad != nil && bytes.Equal(out, data) {
			t.Fatalf("records marked bad but nothing cut: %v", bad)
		}
	})
}
