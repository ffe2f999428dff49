package clickhouse_test

import (
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store/storetest"
)

// TestServerSampleIsTheProcesss: the records the server sends of a
// sampled window are those the process's own hash (schema.TraceHash)
// picks: every alert record and record without a trace, the others of
// the traces in the 1 in k, and of the failing traces in the 1 in failK.
// WindowSize and FirstTime tell what the window holds.
func TestServerSampleIsTheProcesss(t *testing.T) {
	s, inc := demoStore(t)
	from, to := inc.Truth.Window.From, inc.Truth.Window.To
	ids, err := s.FailingTraces(t.Context(), from, to, 0)
	if err != nil {
		t.Fatal(err)
	}
	failing := map[schema.TraceID]bool{}
	for _, id := range ids {
		failing[id] = true
	}
	all := collect(t, s.WindowRecords(t.Context(), schema.WindowQuery{From: from, To: to}))
	n, traces, err := s.WindowSize(t.Context(), from, to)
	if err != nil {
		t.Fatal(err)
	}
	distinct := map[schema.TraceID]bool{}
	for _, r := range all {
		if r.TraceID != "" {
			distinct[r.TraceID] = true
		}
	}
	if n != len(all) || math.Abs(float64(traces-len(distinct))) > 0.05*float64(len(distinct)) {
		t.Errorf("WindowSize = %d records, %d traces; the window holds %d records of %d traces", n, traces, len(all), len(distinct))
	}
	errs := map[string]int{} // a service's errors and warnings
	for _, r := range all {
		if r.IsAlert() {
			errs[r.Service]++
		}
	}
	busiest := ""
	for svc, n := range errs {
		if n > errs[busiest] {
			busiest = svc
		}
	}
	for _, q := range []schema.WindowQuery{{From: from, To: to}, {From: from, To: to, ErrorsOnly: true, Service: busiest}} {
		q.Limit = 0
		want := len(collect(t, s.WindowRecords(t.Context(), q)))
		q.Limit = 3
		if got, err := s.CountRecords(t.Context(), q); err != nil || got != want || want < 4 {
			t.Errorf("CountRecords(%+v) = %d, %v; a read gives %d", q, got, err, want)
		}
	}
	if at, ok, err := s.FirstTime(t.Context(), from, to); err != nil || !ok || !at.Equal(all[0].Time) {
		t.Errorf("FirstTime = %v, %v, %v; the window's first record is at %v", at, ok, err, all[0].Time)
	}
	if at, ok, err := s.FirstTime(t.Context(), to.Add(time.Hour), to.Add(2*time.Hour)); err != nil || ok {
		t.Errorf("FirstTime of a stretch without records = %v, %v, %v", at, ok, err)
	}
	for _, c := range []struct{ k, failK uint64 }{{4, 1}, {8, 2}, {2, 8}, {16, 16}} {
		want := storetest.SampleOf(all, c.k, c.failK, failing)
		got := collect(t, s.SampledRecords(t.Context(), schema.WindowQuery{From: from, To: to}, c.k, c.failK, nil))
		if len(want) == len(all) || len(want) == 0 {
			t.Fatalf("k=%d failK=%d: the sample takes %d of %d records: the case tests nothing", c.k, c.failK, len(want), len(all))
		}
		if !slices.EqualFunc(got, want, storetest.SameRecord) {
			t.Errorf("k=%d failK=%d: the server sent %d records, the process's hash picks %d", c.k, c.failK, len(got), len(want))
		}
		// Read oldest first whatever the read asks, and past its limit
		// an error, as the embedded store's sample.
		q := schema.WindowQuery{From: from, To: to, Newest: true, Limit: len(want)}
		if got := collect(t, s.SampledRecords(t.Context(), q, c.k, c.failK, nil)); !slices.EqualFunc(got, want, storetest.SameRecord) {
			t.Errorf("k=%d failK=%d: a sample of %d records read newest first with that limit gives %d", c.k, c.failK, len(want), len(got))
		}
		q.Limit = len(want) - 1
		var over []schema.Record
		var err error
		for r, e := range s.SampledRecords(t.Context(), q, c.k, c.failK, nil) {
			if e != nil {
				err = e
				break
			}
			over = append(over, r)
		}
		if !errors.Is(err, schema.ErrSampleOverLimit) || !slices.EqualFunc(over, want[:q.Limit], storetest.SameRecord) {
			t.Errorf("k=%d failK=%d: a sample of %d records read with a limit of %d gives %d, %v; want the limit's first, then ErrSampleOverLimit",
				c.k, c.failK, len(want), q.Limit, len(over), err)
		}
	}
}

// TestServerSampledAnalysis: a window over the sampling budget is sampled
// by the ClickHouse server (storetest.SampledAnalysis, against an
// unsampled analysis of the same records on the embedded store). When the
// sample holds more records than the read's limit, the window is read
// again, sampled by the process, and its newest records kept and told
// (storetest.SampleOverLimit).
func TestServerSampledAnalysis(t *testing.T) {
	ch, lite, inc := demoStores(t)
	storetest.SampleOverLimit(t, ch, inc, storetest.SampledAnalysis(t, ch, lite, inc))
}

func top(rep *rootcause.Report) string {
	if len(rep.Candidates) == 0 {
		return "nothing"
	}
	return rep.Candidates[0].Service
}
