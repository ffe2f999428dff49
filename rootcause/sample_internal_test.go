package rootcause

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
)

// sampleStore is a store of records in time order that reads errors only
// when asked (memStore does not), for the sampler's tests.
type sampleStore struct{ recs []schema.Record }

func (m *sampleStore) TraceRecords(context.Context, schema.TraceID, int) iter.Seq2[schema.Record, error] {
	return func(func(schema.Record, error) bool) {}
}

func (m *sampleStore) Bounds(context.Context) (time.Time, time.Time, error) {
	return m.recs[0].Time, m.recs[len(m.recs)-1].Time, nil
}

func (m *sampleStore) WindowRecords(_ context.Context, q schema.WindowQuery) iter.Seq2[schema.Record, error] {
	return func(yield func(schema.Record, error) bool) {
		for _, r := range m.recs {
			if r.Time.Before(q.From) || !r.Time.Before(q.To) || q.ErrorsOnly && !r.IsError() && r.Severity < schema.SeverityWarn {
				continue
			}
			if !yield(r, nil) {
				return
			}
		}
	}
}

// TestSampledReadKeepsTracesWhole: a period read with a small budget
// holds every failing trace and, of the others, exactly those whose id
// hashes into the final 1 in k, each with all its records in their order;
// the records of every trace are profiled all the same, and copies of
// records are found in traces held and left out alike.
func TestSampledReadKeepsTracesWhole(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	var recs []schema.Record
	byTrace := map[schema.TraceID][]schema.Record{}
	failing := map[schema.TraceID]bool{}
	copies := 0
	// 600 traces of 4 records each, interleaved: trace i's records are at
	// i, i+7, i+14, i+21 seconds/10, so that traces overlap in time.
	for i := range 600 {
		id := schema.TraceID(fmt.Sprintf("%032x", i+1))
		for j := range 4 {
			r := schema.Record{Type: schema.TypeLog, Time: t0.Add(time.Duration(i*100+j*700) * time.Millisecond),
				TraceID: id, Service: fmt.Sprintf("svc-%d", j), Severity: schema.SeverityInfo, Body: fmt.Sprintf("step %d", j)}
			if j == 3 && i%10 == 0 {
				r.Severity, r.Body = schema.SeverityError, "it failed"
				failing[id] = true
			}
			recs = append(recs, r)
			byTrace[id] = append(byTrace[id], r)
			if i%50 == 7 && j == 3 {
				recs = append(recs, r) // shipped twice
				copies++
			}
		}
	}
	slices.SortStableFunc(recs, func(a, b schema.Record) int { return a.Time.Compare(b.Time) })
	st := &sampleStore{recs: recs}
	to := recs[len(recs)-1].Time.Add(time.Second)
	find := func() (map[schema.TraceID]struct{}, error) { return failingTraces(context.Background(), st, t0, to, 0) }
	l, err := readPeriod(context.Background(), st, t0, to, Options{}, 0, newSampler(300, find))
	if err != nil {
		t.Fatal(err)
	}
	k := l.sample.k
	if k < 4 {
		t.Fatalf("a budget of 300 records for 2160 healthy ones sampled 1 in %d; want at least 1 in 4", k)
	}
	if l.n != len(recs) || l.p.records != len(recs)-copies || l.dups != copies {
		t.Fatalf("read %d records, profiled %d, found %d copies; want %d, %d, %d", l.n, l.p.records, l.dups, len(recs), len(recs)-copies, copies)
	}
	for id, want := range byTrace {
		got, held := l.traces.idx[id]
		if wantHeld := failing[id] || traceHash(id)%k == 0; held != wantHeld {
			t.Fatalf("trace %s (failing %v) held %v at 1 in %d", id, failing[id], held, k)
		}
		if !held {
			continue
		}
		if len(got) != len(want) {
			t.Fatalf("trace %s holds %d records, want %d", id, len(got), len(want))
		}
		for x, i := range got {
			if r := l.at(i); r.Body != want[x].Body || !r.Time.Equal(want[x].Time) {
				t.Fatalf("trace %s record %d is %q at %s, want %q at %s", id, x, r.Body, r.Time, want[x].Body, want[x].Time)
			}
		}
		if w := l.weight(l.records(id)); failing[id] && w != 1 || !failing[id] && w != int(k) {
			t.Fatalf("trace %s (failing %v) weighs %d at 1 in %d", id, failing[id], w, k)
		}
	}
	s := l.sampled()
	if s == nil || s.Traces != len(byTrace) || s.Held != len(l.traces.idx) || s.K != int(k) {
		t.Fatalf("sampled %+v; want %d traces, %d held, k %d", s, len(byTrace), len(l.traces.idx), k)
	}
	// each calls once per trace a held trace stands for: about the 600.
	est := 0
	l.each(func([]schema.Record) { est++ })
	if est < 600*7/10 || est > 600*13/10 {
		t.Fatalf("the held traces stand for %d traces of 600", est)
	}
}

// records lists the held records of trace id, in order.
func (l *loaded) records(id schema.TraceID) []schema.Record {
	var out []schema.Record
	for _, i := range l.traces.idx[id] {
		out = append(out, *l.at(i))
	}
	return out
}

// TestTraceHashSpreadsSequentialIDs: ids that differ in their last
// characters (a 64-bit counter padded to 128 bits) fall into the sample
// as often as random ones would.
func TestTraceHashSpreadsSequentialIDs(t *testing.T) {
	const n = 80_000
	for _, k := range []uint64{2, 8, 64} {
		in := 0
		for i := range n {
			if traceHash(schema.TraceID(fmt.Sprintf("%032x", i)))%k == 0 {
				in++
			}
		}
		want := float64(n) / float64(k)
		if d := float64(in) - want; d*d > 25*want { // 5 standard deviations
			t.Errorf("1 in %d: %d of %d ids sampled, want about %.0f", k, in, n, want)
		}
	}
}
