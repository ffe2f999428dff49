package rootcause_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/sim"
)

// TestSampledAnalysisOnTheStore analyses a simulated incident from the
// embedded store twice: whole, and with healthy traces sampled (a budget
// far below the window's). Sampled, every failing trace is still
// explained, the per-service counts are the same (every record is
// profiled), the weighted counts of traces and calls estimate the whole
// ones, the same service ranks first, and the report says what it
// sampled; whole, it says nothing of sampling.
func TestSampledAnalysisOnTheStore(t *testing.T) {
	whole, samp := analyzeTwice(t, 5, rootcause.Options{SampleAbove: -1}, func(*rootcause.Report) rootcause.Options {
		return rootcause.Options{SampleAbove: 3000}
	})
	if whole.Sampled != nil {
		t.Fatalf("an analysis told not to sample says it sampled: %+v", whole.Sampled)
	}
	s := samp.Sampled
	if s == nil || s.K < 2 || s.Held >= s.Traces || s.Traces != whole.Traces {
		t.Fatalf("sampled %+v; want 1 in 2 or more, fewer traces held than the window's %d", s, whole.Traces)
	}
	if samp.BaselineData == nil || whole.BaselineData == nil || samp.BaselineData.Records != whole.BaselineData.Records {
		t.Fatalf("the baseline is read whole either way: sampled %+v, whole %+v", samp.BaselineData, whole.BaselineData)
	}
	if samp.FailedTraces != whole.FailedTraces || whole.FailedTraces == 0 {
		t.Fatalf("sampled, %d failing traces were explained; whole, %d", samp.FailedTraces, whole.FailedTraces)
	}
	if d := samp.Traces - whole.Traces; d*d*100 > whole.Traces*whole.Traces { // within 10%
		t.Fatalf("sampled, the window's traces are estimated at %d; it holds %d", samp.Traces, whole.Traces)
	}
	sameServiceCounts(t, whole, samp)
	calls := map[[2]string]int{}
	for _, e := range whole.Edges {
		calls[[2]string{e.From, e.To}] = e.Calls
	}
	busy := 0
	for _, e := range samp.Edges {
		n := calls[[2]string{e.From, e.To}]
		if n < 300 {
			continue // too few calls to estimate within the bound below
		}
		busy++
		if d := e.Calls - n; d*d*9 > n*n*1 { // within a third
			t.Errorf("calls %s -> %s: sampled estimate %d, whole %d", e.From, e.To, e.Calls, n)
		}
	}
	if busy == 0 {
		t.Fatalf("no edge with 300 calls or more to compare: %+v", whole.Edges)
	}
	if len(samp.Candidates) == 0 || samp.Candidates[0].Service != whole.Candidates[0].Service {
		t.Fatalf("sampled, %v ranks first; whole, %s", top(samp), whole.Candidates[0].Service)
	}
	told := false
	for _, w := range samp.Warnings {
		told = told || strings.Contains(w, fmt.Sprintf("1 in %d by the window's end", s.K)) && strings.Contains(w, fmt.Sprintf("of its %d traces read whole", s.Traces))
	}
	if !told {
		t.Fatalf("the sample is not told with its numbers: %q", samp.Warnings)
	}
}

func top(rep *rootcause.Report) string {
	if len(rep.Candidates) == 0 {
		return "nothing"
	}
	return rep.Candidates[0].Service
}

// TestSampledFailingTraces analyses a simulated incident whole and with
// its failing traces sampled (a budget of a fifth of them). Sampled, each
// failing trace held counts as many as it stands for: the window's
// failing traces and the first candidate's are estimated within a fifth,
// the per-service counts are exact (every record is still profiled), the
// same service ranks first, no example trace is shown twice, and the
// report says what it sampled.
func TestSampledFailingTraces(t *testing.T) {
	whole, samp := analyzeTwice(t, 7, rootcause.Options{SampleFailingAbove: -1}, func(whole *rootcause.Report) rootcause.Options {
		if whole.Sampled != nil || whole.FailedTraces < 200 || len(whole.Candidates) == 0 {
			t.Fatalf("whole: sampled %+v, %d failing traces, %d candidates; want no sample and 200 failing traces or more",
				whole.Sampled, whole.FailedTraces, len(whole.Candidates))
		}
		return rootcause.Options{SampleFailingAbove: whole.FailedTraces / 5}
	})
	s := samp.Sampled
	if s == nil || s.FailingK < 4 || s.FailingHeld*2 > s.Failing || s.K != 1 {
		t.Fatalf("sampled %+v; want the failing traces 1 in 4 or more, and the healthy ones whole", s)
	}
	within := func(got, want, frac int) bool { d := got - want; return d*d*frac*frac <= want*want }
	if !within(samp.FailedTraces, whole.FailedTraces, 5) {
		t.Errorf("sampled, the failing traces are estimated at %d; whole, %d", samp.FailedTraces, whole.FailedTraces)
	}
	if top(samp) != whole.Candidates[0].Service {
		t.Fatalf("sampled, %s ranks first; whole, %s", top(samp), whole.Candidates[0].Service)
	}
	if c, w := samp.Candidates[0], whole.Candidates[0]; !within(c.Traces, w.Traces, 5) {
		t.Errorf("%s: sampled, it explains an estimated %d traces; whole, %d", c.Service, c.Traces, w.Traces)
	}
	sameServiceCounts(t, whole, samp)
	for _, c := range samp.Candidates {
		seen := map[schema.TraceID]bool{}
		for _, id := range c.ExampleTraces {
			if seen[id] {
				t.Errorf("%s shows example trace %s twice: %v", c.Service, id, c.ExampleTraces)
			}
			seen[id] = true
		}
	}
	told := false
	for _, w := range samp.Warnings {
		told = told || strings.Contains(w, fmt.Sprintf("failing traces by %d of them (by trace id, 1 in %d", s.FailingHeld, s.FailingK))
	}
	if !told {
		t.Fatalf("the sample of failing traces is not told with its numbers: %q", samp.Warnings)
	}
}

// analyzeTwice analyses a simulated incident (db pool exhaustion, seed
// seed) from the embedded store with whole, then with the options then
// gives for what whole reported.
func analyzeTwice(t *testing.T, seed int64, whole rootcause.Options, then func(*rootcause.Report) rootcause.Options) (*rootcause.Report, *rootcause.Report) {
	t.Helper()
	st, q := simStore(t, sim.Config{Seed: seed, Fault: schema.KindDBPoolExhaustion, Baseline: 10 * time.Minute,
		Window: 5 * time.Minute, TracesPerSecond: 4})
	// The process samples as the records stream: the embedded store's
	// own sample is store/sqlite's TestStoreSampledAnalysis.
	db := processSampled{st}
	a, err := rootcause.Analyze(context.Background(), db, q, whole)
	if err != nil {
		t.Fatal(err)
	}
	b, err := rootcause.Analyze(context.Background(), db, q, then(a))
	if err != nil {
		t.Fatal(err)
	}
	return a, b
}

// processSampled is a store that does not sample a window itself.
type processSampled struct{ rootcause.Store }

// sameServiceCounts checks that sampling left the per-service counts
// exact: every record is profiled.
func sameServiceCounts(t *testing.T, whole, samp *rootcause.Report) {
	t.Helper()
	counts := map[string][2]int{}
	for _, sv := range whole.Services {
		counts[sv.Service] = [2]int{sv.Records, sv.Errors}
	}
	for _, sv := range samp.Services {
		if c := counts[sv.Service]; c != [2]int{sv.Records, sv.Errors} {
			t.Errorf("%s: sampled %d records and %d errors, whole %d and %d", sv.Service, sv.Records, sv.Errors, c[0], c[1])
		}
	}
}
