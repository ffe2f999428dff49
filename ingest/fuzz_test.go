package ingest

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
	"github.com/golang/snappy"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

// fuzzLimits are small so the fuzzer reaches every cap.
func fuzzLimits() Limits {
	return Limits{MaxLineBytes: 512, MaxAttrs: 6, MaxKeyBytes: 24, MaxValueBytes: 64, MaxDepth: 3}
}

// seedFiles adds every file under testdata/dir to f, whole and line by line.
func seedFiles(f *testing.F, dir string) [][]byte {
	var all [][]byte
	files, _ := filepath.Glob(filepath.Join("testdata", dir, "*"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		all = append(all, b)
		all = append(all, bytes.Split(b, []byte("\n"))...)
	}
	if len(all) == 0 {
		f.Fatalf("no seeds under testdata/%s", dir)
	}
	return all
}

// checkBatch asserts what every accepted record must satisfy whatever the
// input: ids valid and normalised, caps respected, counts consistent.
func checkBatch(t *testing.T, b *Batch) {
	t.Helper()
	lim := b.lim
	if b.Stats.Accepted != len(b.Records) {
		t.Fatalf("accepted %d but %d records", b.Stats.Accepted, len(b.Records))
	}
	for _, r := range b.Records {
		if r.TraceID != "" {
			if id, err := schema.ParseTraceID(string(r.TraceID)); err != nil || id != r.TraceID {
				t.Fatalf("trace id %q not normalised", r.TraceID)
			}
		}
		for _, s := range []schema.SpanID{r.SpanID, r.ParentSpanID} {
			if s != "" {
				if id, err := schema.ParseSpanID(string(s)); err != nil || id != s || len(s) != 16 {
					t.Fatalf("span id %q not normalised", s)
				}
			}
		}
		if len(r.Body) > lim.MaxLineBytes || len(r.Service) > lim.MaxValueBytes || len(r.Name) > lim.MaxValueBytes {
			t.Fatalf("record over the caps: body %d service %d name %d", len(r.Body), len(r.Service), len(r.Name))
		}
		if len(r.Attrs) > lim.MaxAttrs {
			t.Fatalf("%d attrs, cap %d", len(r.Attrs), lim.MaxAttrs)
		}
		for k, v := range r.Attrs {
			if k == "" || len(k) > lim.MaxKeyBytes || len(v) > lim.MaxValueBytes {
				t.Fatalf("attr %q (%d bytes) over the caps", k, len(v))
			}
		}
		if r.Type == schema.TypeLog && r.Body == "" {
			t.Fatal("log record with an empty body accepted")
		}
		if r.Body != "" && len(r.Signature) != 16 {
			t.Fatalf("body %q without template/signature", r.Body)
		}
		if r.Time.IsZero() {
			t.Fatal("record without a time")
		}
		if !schema.TimeInRange(r.Time) {
			t.Fatalf("record with time %s, which no store can hold", r.Time.Format(time.RFC3339Nano))
		}
	}
}

// QA seeds: inputs found wrong by a hostile tester (times no store can
// hold, ids too short or too long, nesting deeper than the limits).
var (
	qaTimes = []string{"2300-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "1600-01-01T00:00:00Z", "0001-01-01T00:00:00Z",
		"2263-06-01T00:00:00Z", "1969-12-31T23:59:59.999999999Z", "2106-01-01T00:00:00Z"}
	qaUnixNanos = []string{"9223372036854775807", "9223372036854775808", "18446744073709551615", "10000000000000000", "0", "1", "-1"}
	qaIDs       = []string{"abc", "4bf92f3577b34da6a3ce929d0e0e4736ff", "4bf92f3577b34da6a3ce929d0e0e47", "00f067aa0ba902b7aa", "00f0"}
)

// deepJSON is a JSON object nested n deep.
func deepJSON(n int) string {
	return strings.Repeat(`{"a":`, n) + `"x"` + strings.Repeat("}", n)
}

func FuzzJSONLines(f *testing.F) {
	for _, s := range seedFiles(f, "jsonl") {
		f.Add(s)
	}
	for _, tm := range qaTimes {
		f.Add([]byte(`{"msg":"good","service":"a"}` + "\n" + `{"msg":"bad","time":"` + tm + `","service":"a"}`))
	}
	for _, ns := range qaUnixNanos {
		f.Add([]byte(`{"msg":"x","ts":` + ns + `}`))
	}
	for _, id := range qaIDs {
		f.Add([]byte(`{"msg":"x","trace_id":"` + id + `","span_id":"` + id + `"}`))
	}
	f.Add([]byte(`{"msg":"deep","attrs":` + deepJSON(40) + `}`))
	dc := NewDecoder(DecoderConfig{Limits: fuzzLimits()})
	f.Fuzz(func(t *testing.T, data []byte) {
		b := NewBatch(dc.Limits())
		dc.JSONLines(data, b)
		checkBatch(t, b)
	})
}

func FuzzText(f *testing.F) {
	for _, s := range seedFiles(f, "text") {
		f.Add(s)
	}
	dc := NewDecoder(DecoderConfig{Limits: fuzzLimits()})
	f.Fuzz(func(t *testing.T, data []byte) {
		b := NewBatch(dc.Limits())
		dc.TextLines(data, b)
		checkBatch(t, b)
	})
}

func FuzzLokiJSON(f *testing.F) {
	for _, s := range seedFiles(f, "loki") {
		f.Add(s)
	}
	f.Add(lokiJSONPush(traceFor(1)))
	for _, ns := range qaUnixNanos {
		f.Add([]byte(`{"streams":[{"stream":{"app":"a"},"values":[["1709634030000000000","good"],["` + ns + `","bad"]]}]}`))
	}
	f.Add([]byte(`{"streams":[{"stream":{"app":"a"},"values":[["1709634030000000000",` + strconv.Quote(deepJSON(40)) + `]]}]}`))
	dc := NewDecoder(DecoderConfig{Limits: fuzzLimits()})
	f.Fuzz(func(t *testing.T, data []byte) {
		b := NewBatch(dc.Limits())
		if err := dc.LokiJSON(data, b); err != nil && b.Len() > 0 {
			t.Fatal("records kept from a body reported malformed")
		}
		checkBatch(t, b)
	})
}

func FuzzLokiProto(f *testing.F) {
	raw, _ := snappy.Decode(nil, lokiProtoBody(traceFor(1)))
	f.Add(raw)
	for _, sec := range []int64{-62135596800 - 86400*366, -62135596800, 253402300800, 10413792000, 0, 1709634030} {
		f.Add(pbLen(1, pbStr(1, `{service_name="a"}`), pbLokiEntry(1709634030, "good"), pbLokiEntry(sec, "qa")))
	}
	f.Add([]byte{0xff, 0xff, 0xff, 0x7f, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
	for _, s := range seedFiles(f, "text") {
		f.Add(s)
	}
	dc := NewDecoder(DecoderConfig{Limits: fuzzLimits()})
	f.Fuzz(func(t *testing.T, data []byte) {
		b := NewBatch(dc.Limits())
		if err := dc.LokiProto(data, b); err != nil && b.Len() > 0 {
			t.Fatal("records kept from a body reported malformed")
		}
		checkBatch(t, b)
	})
}

func FuzzOTLPProto(f *testing.F) {
	for _, s := range seedFiles(f, "otlp") {
		if req := plogotlp.NewExportRequest(); req.UnmarshalJSON(s) == nil {
			p, _ := req.MarshalProto()
			f.Add(p, false)
		}
		if req := ptraceotlp.NewExportRequest(); req.UnmarshalJSON(s) == nil {
			p, _ := req.MarshalProto()
			f.Add(p, true)
		}
	}
	f.Add(otlpLogsProto(traceFor(1)), false)
	f.Add(otlpTracesProto(traceFor(1)), true)
	for _, ts := range []uint64{1 << 63, math.MaxUint64, uint64(schema.MaxTimeUnixNano), 1} {
		f.Add(otlpLogsAt(ts), false)
		f.Add(otlpSpansProtoAt(ts), true)
	}
	for _, id := range [][]byte{{1, 2, 3}, bytes.Repeat([]byte{1}, 17), bytes.Repeat([]byte{1}, 9)} {
		f.Add(pbLogs(pbLog("good"), pbLog("bad", pbLen(9, id))), false)
		f.Add(pbLogs(pbLog("good"), pbLog("bad", pbLen(10, id))), false)
		f.Add(pbTraces(pbSpanRec("good"), pbLen(2, pbLen(1, id), pbLen(2, pbSpan[:]), pbFixed(7, pbTime))), true)
		f.Add(pbTraces(pbSpanRec("linked", pbLen(13, pbLen(1, id)))), true)
	}
	f.Add(deepLogs(), false)
	dc := NewDecoder(DecoderConfig{Limits: fuzzLimits()})
	f.Fuzz(func(t *testing.T, data []byte, traces bool) {
		b := NewBatch(dc.Limits())
		decode := dc.OTLPLogsProto
		if traces {
			decode = dc.OTLPTracesProto
		}
		if err := decode(data, b); err != nil && b.Len() > 0 {
			t.Fatal("records kept from a body reported malformed")
		}
		checkBatch(t, b)
	})
}

func FuzzOTLPJSON(f *testing.F) {
	for _, s := range seedFiles(f, "otlp") {
		f.Add(s, bytes.Contains(s, []byte("resourceSpans")))
	}
	for _, ns := range qaUnixNanos {
		f.Add(otlpSpansJSONAt(ns), true)
	}
	for _, id := range qaIDs {
		f.Add([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"`+id+`","spanId":"`+id+`","startTimeUnixNano":"1709634030000000000"}]}]}]}`), true)
		f.Add([]byte(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"traceId":"`+id+`","body":{"stringValue":"x"}}]}]}]}`), false)
	}
	dc := NewDecoder(DecoderConfig{Limits: fuzzLimits()})
	f.Fuzz(func(t *testing.T, data []byte, traces bool) {
		b := NewBatch(dc.Limits())
		decode := dc.OTLPLogsJSON
		if traces {
			decode = dc.OTLPTracesJSON
		}
		if err := decode(data, b); err != nil && b.Len() > 0 {
			t.Fatal("records kept from a body reported malformed")
		}
		checkBatch(t, b)
	})
}

// FuzzScrubOTLPProto checks the protobuf scrubber against pdata: a body
// pdata reads whole is handed on unchanged, and a body the scrubber
// rewrote is one pdata reads.
func FuzzScrubOTLPProto(f *testing.F) {
	f.Add(otlpLogsProto(traceFor(1)), false)
	f.Add(otlpTracesProto(traceFor(1)), true)
	f.Add(deepLogs(), false)
	f.Add(pbLogs(pbLog("good"), pbLog("bad", pbLen(9, []byte{1, 2, 3}))), false)
	f.Add(pbTraces(pbSpanRec("linked", pbLen(13, pbLen(1, []byte{1, 2, 3})))), true)
	f.Fuzz(func(t *testing.T, data []byte, spans bool) {
		parse := func(b []byte) error { return plogotlp.NewExportRequest().UnmarshalProto(b) }
		if spans {
			parse = func(b []byte) error { return ptraceotlp.NewExportRequest().UnmarshalProto(b) }
		}
		out, bad := scrubOTLPProto(data, spans)
		changed := !bytes.Equal(out, data)
		if parse(data) == nil && (changed || len(bad) > 0) {
			t.Fatalf("a body pdata reads was scrubbed (%v)", bad)
		}
		if changed {
			if err := parse(out); err != nil {
				t.Fatalf("the scrubbed body does not parse: %v", err)
			}
		}
	})
}
