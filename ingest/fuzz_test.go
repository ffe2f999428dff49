package ingest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

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
	}
}

func FuzzJSONLines(f *testing.F) {
	for _, s := range seedFiles(f, "jsonl") {
		f.Add(s)
	}
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
