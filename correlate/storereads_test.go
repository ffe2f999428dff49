package correlate

import (
	"context"
	"fmt"
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
