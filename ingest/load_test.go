package ingest

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

func TestLoaderFormatsAndBatches(t *testing.T) {
	lim := Limits{MaxRecordsPerBatch: 2, MaxLineBytes: 400}
	cases := []struct {
		name   string
		data   []byte
		format Format
		recs   int
		writes int // record lines: batches of 2; body lines: one write per body
	}{
		{"jsonl gz", gz(jsonlBody(traceFor(1))), FormatJSONLines, 5, 3},
		{"loki json lines", append(append(lokiJSONPush(traceFor(2)), '\n'), lokiJSONPush(traceFor(3))...), FormatLokiJSON, 10, 2},
		{"otlp logs", append([]byte("\n\n"), otlpLogsJSON(traceFor(4))...), FormatOTLPLogs, 5, 1},
		{"otlp traces", otlpTracesJSON(traceFor(5)), FormatOTLPTraces, 3, 1},
		{"text", []byte("ERROR boom trace_id=" + tid + "\n" + strings.Repeat("x", 500) + "\nINFO fine\r\n"), FormatText, 2, 1},
	}
	for _, c := range cases {
		sink := &fakeSink{}
		st, f, err := NewLoader(NewDecoder(DecoderConfig{Limits: lim}), sink, nil).Load(context.Background(), c.name, bytes.NewReader(c.data))
		if err != nil || f != c.format || len(sink.records()) != c.recs || st.Accepted != c.recs {
			t.Errorf("%s: err %v format %s, %d stored, stats %+v", c.name, err, f, len(sink.records()), st)
		}
		if sink.batches != c.writes {
			t.Errorf("%s: %d writes, want %d", c.name, sink.batches, c.writes)
		}
	}
	sink := &fakeSink{}
	st, _, _ := NewLoader(NewDecoder(DecoderConfig{Limits: lim}), sink, nil).Load(context.Background(), "text", bytes.NewReader(cases[4].data))
	if st.Rejects[ReasonLineTooLong] != 1 || sink.records()[0].TraceID != tid || sink.records()[1].Body != "INFO fine" {
		t.Errorf("text: %+v %+v", st, sink.records())
	}
}

func TestLoaderErrors(t *testing.T) {
	sink := &fakeSink{err: errors.New("disk full")}
	_, _, err := NewLoader(newTestDecoder(t), sink, nil).Load(context.Background(), "x", bytes.NewReader(jsonlBody(traceFor(1))))
	if !errors.Is(err, ErrSink) {
		t.Errorf("sink failure: %v", err)
	}
	bad := gz(jsonlBody(traceFor(1)))
	bad = bad[:len(bad)/2]
	_, _, err = NewLoader(newTestDecoder(t), &fakeSink{}, nil).Load(context.Background(), "cut.gz", bytes.NewReader(bad))
	if err == nil || errors.Is(err, ErrSink) {
		t.Errorf("truncated gzip: %v", err)
	}
	st, f, err := NewLoader(newTestDecoder(t), &fakeSink{}, nil).Load(context.Background(), "empty", bytes.NewReader(nil))
	if err != nil || st.Accepted != 0 || f != "" {
		t.Errorf("empty file: %v %+v %q", err, st, f)
	}
}

func TestServiceFromFileName(t *testing.T) {
	for in, want := range map[string]string{
		"payment-service.log.gz": "payment-service", "x.jsonl": "x", "/var/log/app/checkout.log": "checkout",
		"api.log.1": "api", "web.2024-01-15.log.gz": "web", "orders.v2.log": "orders.v2", "-": "", "": "",
		".log": "", "worker": "worker", "Cart.NDJSON": "Cart",
	} {
		if got := ServiceFromFileName(in); got != want {
			t.Errorf("ServiceFromFileName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLoaderServiceFallback: plain-text and JSON-lines records that name no
// service take the file's name, or LoadOptions.Service over it; a record's
// own service wins; stdin and Loki/OTLP files get no fallback.
func TestLoaderServiceFallback(t *testing.T) {
	text := "2024-01-15 10:23:45 ERROR boom\n2024-01-15 10:23:46 ERROR service=own boom\n"
	jsonl := `{"msg":"a"}` + "\n" + `{"msg":"b","service":"own"}` + "\n"
	cases := []struct {
		name, opt, data string
		want            []string
	}{
		{"payment-service.log.gz", "", string(gz([]byte(text))), []string{"payment-service", "own"}},
		{"/tmp/cart.jsonl", "", jsonl, []string{"cart", "own"}},
		{"/tmp/cart.jsonl", "checkout", jsonl, []string{"checkout", "own"}},
		{"-", "", jsonl, []string{"", "own"}},
		{"-", "checkout", text, []string{"checkout", "own"}},
		{"push.jsonl", "", string(lokiJSONPush(traceFor(2))), nil},
	}
	for _, c := range cases {
		sink := &fakeSink{}
		_, _, err := NewLoader(newTestDecoder(t), sink, nil).LoadWith(context.Background(), c.name, strings.NewReader(c.data), LoadOptions{Service: c.opt})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		recs := sink.records()
		if c.want == nil { // Loki: the stream's labels name the service
			for _, r := range recs {
				if r.Service == "push" {
					t.Errorf("%s: Loki record took the file name: %+v", c.name, r)
				}
			}
			continue
		}
		if len(recs) != len(c.want) {
			t.Fatalf("%s: %d records", c.name, len(recs))
		}
		for i, r := range recs {
			if r.Service != c.want[i] {
				t.Errorf("%s/%q: service %q, want %q", c.name, c.opt, r.Service, c.want[i])
			}
		}
	}
}
