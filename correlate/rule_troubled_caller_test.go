package correlate

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/faultline/faultline/schema"
)

// troubledStore holds a trace in which shipping's calls to a third party
// fail (its bulkhead full), and shipping's GC warnings, outside any trace:
// gcRecent in the two minutes before, gcEarlier spread over the hour
// before that.
func troubledStore(gcRecent, gcEarlier int) *windowStore {
	st := &windowStore{}
	const failAt = 3_700_000 // ms after the test's epoch
	st.recs = append(st.recs, inTrace(string(tid),
		logAt("", "checkout", failAt+50, schema.SeverityError, "order failed: 503 Service Unavailable from shipping"),
		logAt("", "shipping", failAt, schema.SeverityError, "rates lookup failed: bulkhead carrierRates full: max concurrent calls (3) reached calling carrier-rates-api"))...)
	gc := func(ms int) schema.Record {
		r := logAt("", "shipping", ms, schema.SeverityWarn, fmt.Sprintf("event loop blocked for %dms (possible GC pressure)", 900+ms%700))
		r.TraceID = ""
		return r
	}
	for i := range gcRecent {
		st.recs = append(st.recs, gc(failAt-110_000+i*100_000/max(gcRecent, 1)))
	}
	for i := range gcEarlier {
		st.recs = append(st.recs, gc(failAt-3_600_000+i*3_400_000/max(gcEarlier, 1)))
	}
	return st
}

func TestBlameTroubledCaller(t *testing.T) {
	for _, c := range []struct {
		name              string
		recent, earlier   int
		wantSvc, wantKind string
	}{
		{"pausing just before its call failed", 12, 2, "shipping", "resource-gc"},
		{"pausing as much as all hour", 12, 400, "carrier-rates-api", ""},
		{"not pausing", 0, 0, "carrier-rates-api", ""},
	} {
		res, err := Analyze(context.Background(), troubledStore(c.recent, c.earlier), tid, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Suspect == nil || res.Suspect.Service != c.wantSvc {
			t.Errorf("%s: suspect %+v, want %s", c.name, res.Suspect, c.wantSvc)
			continue
		}
		if c.wantKind != "" && (string(res.Suspect.Kind) != c.wantKind || !strings.Contains(res.Suspect.Reason, "GC pressure")) {
			t.Errorf("%s: suspect %+v, want kind %s and the GC line quoted", c.name, res.Suspect, c.wantKind)
		}
	}
}

// TestTroubleBeforeHeldIsTheStores: troubleBefore over an analysis's held
// errors (each line classified once) counts what it counts reading the
// store, at moments before, in and after the trouble, for GC lines sparse
// and dense enough that a stretch's read stops at riseScan.
func TestTroubleBeforeHeldIsTheStores(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct{ recent, earlier int }{{12, 2}, {12, 400}, {0, 0}, {300, 2600}} {
		st := troubledStore(c.recent, c.earlier)
		// As the store rules read: a tracesRead over an errorsRead.
		held := &tracesRead{WindowStore: newErrorsRead(st), recs: map[traceRead][]schema.Record{}}
		if heldErrors(held) == nil {
			t.Fatal("troubleBefore does not find the errors the store rules hold")
		}
		for _, ms := range []int{600_000, 3_500_000, 3_650_000, 3_700_000, 3_760_000, 7_000_000} {
			want, err := troubleBefore(ctx, st, &storeMemo{}, "shipping", at(ms))
			if err != nil {
				t.Fatal(err)
			}
			got, err := troubleBefore(ctx, held, &storeMemo{}, "shipping", at(ms))
			if err != nil {
				t.Fatal(err)
			}
			if got.rise != want.rise || fmt.Sprint(got.counts, got.samples) != fmt.Sprint(want.counts, want.samples) {
				t.Errorf("%d recent, %d earlier, at %d ms: held %+v %v, store %+v %v", c.recent, c.earlier, ms, got.rise, got.counts, want.rise, want.counts)
			}
			if c.recent > 0 && ms == 3_700_000 && want.rise.recent == 0 {
				t.Errorf("%d recent: no trouble counted just before the failure: %+v", c.recent, want.rise)
			}
		}
	}
}
