package ingest

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/golang/snappy"

	"github.com/faultline/faultline/schema"
)

// seqSink hides the Batch, so that decoders take their sequential path.
type seqSink struct{ *Batch }

// mixedJSONL is n JSON lines with bad ones among them: not JSON, a bad
// trace id, an empty line.
func mixedJSONL(n int) []byte {
	var buf bytes.Buffer
	body := benchJSONL(n)
	for i, line := range bytes.Split(bytes.TrimSuffix(body, []byte("\n")), []byte("\n")) {
		switch i % 97 {
		case 13:
			buf.WriteString("{not json\n")
		case 41:
			buf.WriteString(`{"msg":"x","trace_id":"zz-not-hex"}` + "\n")
		case 60:
			buf.WriteString("\n")
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

// TestParallelDecodeIsSequential: the decoders that spread a big body over
// every core (JSON lines, Loki protobuf, OTLP logs protobuf) give the
// records, in the order, and the stats of a sequential decode.
func TestParallelDecodeIsSequential(t *testing.T) {
	dc := NewDecoder(DecoderConfig{})
	const n = 20_000 // over parallelMin bytes and parallelMinRecords
	lokiRaw, err := snappy.Decode(nil, benchLokiProto(n))
	if err != nil {
		t.Fatal(err)
	}
	jsonl, otlp := mixedJSONL(n), benchOTLPLogs(n)
	if len(jsonl) < parallelMin {
		t.Fatalf("the JSON lines body is %d bytes, under parallelMin", len(jsonl))
	}
	for _, c := range []struct {
		name string
		run  func(sink RecordSink, parallel bool) error
	}{
		{"jsonl", func(sink RecordSink, parallel bool) error {
			if parallel {
				decodeLinesParallel(jsonl, sink.(*Batch), dc.JSONLine)
			} else {
				dc.JSONLines(jsonl, sink)
			}
			return nil
		}},
		{"loki-protobuf", func(sink RecordSink, _ bool) error { return dc.LokiProto(lokiRaw, sink) }},
		{"otlp-logs-protobuf", func(sink RecordSink, _ bool) error { return dc.OTLPLogsProto(otlp, sink) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			seq, par := NewBatch(Limits{}), NewBatch(Limits{})
			if err := c.run(seqSink{seq}, false); err != nil {
				t.Fatal(err)
			}
			if err := c.run(par, true); err != nil {
				t.Fatal(err)
			}
			if seq.Len() < n/2 {
				t.Fatalf("the sequential decode kept %d records of %d", seq.Len(), n)
			}
			if !reflect.DeepEqual(par.Stats, seq.Stats) {
				t.Errorf("stats: parallel %+v, sequential %+v", par.Stats, seq.Stats)
			}
			if par.Len() != seq.Len() {
				t.Fatalf("parallel decode kept %d records, sequential %d", par.Len(), seq.Len())
			}
			for i := range seq.Records {
				if !reflect.DeepEqual(par.Records[i], seq.Records[i]) {
					t.Fatalf("record %d: parallel %s, sequential %s", i, fmt.Sprint(par.Records[i]), fmt.Sprint(seq.Records[i]))
				}
			}
		})
	}
}

// TestInPartsOutgrownRegion: a part that decodes more records than its
// region holds leaves every part's records whole and in order.
func TestInPartsOutgrownRegion(t *testing.T) {
	dc := NewDecoder(DecoderConfig{})
	b := NewBatch(dc.Limits())
	counts := []int{3, 2, 1} // part 0 outgrows its region of 2; part 1 fills its own
	inParts(b, len(counts), func(int) int { return 2 }, func(i int, part *Batch) {
		for j := range counts[i] {
			part.Add(schema.Record{Time: time.Unix(1700000000, 0), Service: fmt.Sprintf("p%d", i), Body: fmt.Sprintf("%d-%d", i, j)})
		}
	})
	var got []string
	for _, r := range b.Records {
		got = append(got, r.Body)
	}
	want := []string{"0-0", "0-1", "0-2", "1-0", "1-1", "2-0"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("records %q, want %q", got, want)
	}
	if b.Stats.Accepted != len(want) {
		t.Errorf("accepted %d, want %d", b.Stats.Accepted, len(want))
	}
}
