package clickhouse_test

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store/clickhouse"
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
	failing := failingSet(t, s, from, to)
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

// TestServerGroupsAlikeErrors: a sampled read that may group its records
// (schema.WindowQuery.Group) sends what the read that may not sends, but
// for the errors of the traces out of the sample: those come as one
// record per group alike, the group's first as it is with the group's
// size (Record.Count), in time order with the rest. Counted by what the
// analysis tells apart (the template, the attributes, the slot of the
// coverage and the part of the timeline), they are every such error, and
// the first of each is the first the read that may not group sends.
func TestServerGroupsAlikeErrors(t *testing.T) {
	s, inc := demoStore(t)
	// Parts of the window that do not fall on the slots' edges.
	from, to := inc.Truth.Window.From.Add(3700*time.Millisecond), inc.Truth.Window.To
	failing := failingSet(t, s, from, to)
	g := schema.RecordGroups{Slot: 10 * time.Second, Parts: 30}
	for _, c := range []struct{ k, failK uint64 }{{8, 4}, {16, 16}} {
		plain := collect(t, s.SampledRecords(t.Context(), schema.WindowQuery{From: from, To: to}, c.k, c.failK, nil))
		grouped := collect(t, s.SampledRecords(t.Context(), schema.WindowQuery{From: from, To: to, Group: &g}, c.k, c.failK, nil))
		out := func(r schema.Record) bool { // an error of a trace out of the sample
			h := schema.TraceHash(r.TraceID)
			return r.TraceID != "" && r.IsError() && h%c.k != 0 && !(failing[r.TraceID] && h%c.failK == 0)
		}
		key := func(r schema.Record) string {
			part := int(float64(g.Parts) * float64(r.Time.Sub(from)) / float64(to.Sub(from)))
			return fmt.Sprint(r.Type, r.Service, r.Severity, r.SeverityText, r.Name, r.Status, r.Template, r.Signature,
				r.Attrs, r.Time.UnixNano()/int64(g.Slot), part)
		}
		type tally struct {
			n     int
			first schema.Record
		}
		count := func(recs []schema.Record) (kept []schema.Record, groups map[string]*tally) {
			groups = map[string]*tally{}
			for i, r := range recs {
				if i > 0 && r.Time.Before(recs[i-1].Time) {
					t.Fatalf("record %d at %v after one at %v: out of order", i, r.Time, recs[i-1].Time)
				}
				if !out(r) {
					kept = append(kept, r)
					continue
				}
				k, n := key(r), max(int(r.Count), 1)
				if groups[k] == nil {
					r.Count = 0
					groups[k] = &tally{first: r}
				}
				groups[k].n += n
			}
			return kept, groups
		}
		wantKept, want := count(plain)
		gotKept, got := count(grouped)
		if !slices.EqualFunc(gotKept, wantKept, storetest.SameRecord) {
			t.Errorf("k=%d failK=%d: %d records of the sample and alerts kept whole, want %d", c.k, c.failK, len(gotKept), len(wantKept))
		}
		if len(want) == 0 || len(grouped) >= len(plain) {
			t.Fatalf("k=%d failK=%d: %d groups, %d records sent of %d: the case groups nothing", c.k, c.failK, len(want), len(grouped), len(plain))
		}
		for k, w := range want {
			gt := got[k]
			if gt == nil || gt.n != w.n || !reflect.DeepEqual(gt.first, w.first) {
				if gt == nil {
					t.Errorf("k=%d failK=%d: group %s: none sent, want %d records", c.k, c.failK, k, w.n)
					continue
				}
				t.Errorf("k=%d failK=%d: group %s: %d records, the first %+v; want %d, the first %+v", c.k, c.failK, k, gt.n, gt.first, w.n, w.first)
			}
		}
		if len(got) != len(want) {
			t.Errorf("k=%d failK=%d: %d groups, want %d", c.k, c.failK, len(got), len(want))
		}
	}
}

// failingSet is the set of the traces the server names failing in [from, to).
func failingSet(t *testing.T, s *clickhouse.Store, from, to time.Time) map[schema.TraceID]bool {
	t.Helper()
	ids, err := s.FailingTraces(t.Context(), from, to, 0)
	if err != nil {
		t.Fatal(err)
	}
	failing := map[schema.TraceID]bool{}
	for _, id := range ids {
		failing[id] = true
	}
	return failing
}
