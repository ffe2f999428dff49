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
