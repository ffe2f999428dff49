package correlate

import (
	"context"
	"fmt"
	"iter"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
)

// TestErrorsReadGivesWhatTheStoreGives: reads of errors and warnings
// through one errorsRead, of overlapping stretches in any order, with and
// without a service and with limits, give the records the store gives, in
// its order; and its caps send reads to the store.
func TestErrorsReadGivesWhatTheStoreGives(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	st := &windowStore{}
	sevs := []schema.Severity{schema.SeverityInfo, schema.SeverityWarn, schema.SeverityError}
	for i := range 1000 {
		svc := []string{"a", "b", "c"}[rng.IntN(3)]
		r := logAt("", svc, rng.IntN(90*60_000), sevs[rng.IntN(3)], fmt.Sprintf("line %d", i))
		r.TraceID = schema.TraceID(fmt.Sprintf("%032x", rng.IntN(400)))
		st.recs = append(st.recs, r)
	}
	read := func(s WindowStore, q schema.WindowQuery) []schema.Record {
		var out []schema.Record
		for r, err := range s.WindowRecords(ctx, q) {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, r)
		}
		return out
	}
	for _, cap := range []bool{false, true} {
		e := newErrorsRead(st)
		if cap {
			e.held = errorsHeldCap - 100 // nearly full: most reads go to the store
		}
		for range 120 {
			from := at(rng.IntN(80 * 60_000))
			q := schema.WindowQuery{From: from, To: from.Add(time.Duration(1+rng.IntN(70*60)) * time.Second),
				ErrorsOnly: true, Limit: 1 + rng.IntN(300)}
			if rng.IntN(2) == 0 {
				q.Service = []string{"a", "b", "c"}[rng.IntN(3)]
			}
			want, got := read(st, q), read(e, q)
			if !slices.EqualFunc(want, got, func(a, b schema.Record) bool { return a.Body == b.Body && a.Time.Equal(b.Time) }) {
				t.Fatalf("%+v: errorsRead gives %d records, the store %d (or another order)", q, len(got), len(want))
			}
		}
	}
}

// countedStore counts the window reads that reach its store.
type countedStore struct {
	*windowStore
	reads int
}

func (c *countedStore) WindowRecords(ctx context.Context, q schema.WindowQuery) iter.Seq2[schema.Record, error] {
	c.reads++
	return c.windowStore.WindowRecords(ctx, q)
}

// TestErrorsReadFirstRecord: a read of a window's first record gives what
// the store gives, and the same read again does not reach the store.
func TestErrorsReadFirstRecord(t *testing.T) {
	ctx := context.Background()
	st := &countedStore{windowStore: &windowStore{memStore{recs: []schema.Record{
		logAt("", "a", 5_000, schema.SeverityInfo, "first"),
		logAt("", "b", 9_000, schema.SeverityError, "second"),
	}}}}
	e := newErrorsRead(st)
	first := func(from, to int) string {
		for r, err := range e.WindowRecords(ctx, schema.WindowQuery{From: at(from), To: at(to), Limit: 1}) {
			if err != nil {
				t.Fatal(err)
			}
			return r.Body
		}
		return ""
	}
	for range 2 {
		if got := first(0, 60_000); got != "first" {
			t.Errorf("first record of the minute = %q, want first", got)
		}
		if got := first(6_000, 60_000); got != "second" {
			t.Errorf("first record from 6 s = %q, want second", got)
		}
		if got := first(10_000, 60_000); got != "" {
			t.Errorf("first record from 10 s = %q, want none", got)
		}
	}
	if st.reads != 3 {
		t.Errorf("the store was read %d times for 3 windows asked twice each", st.reads)
	}
}
