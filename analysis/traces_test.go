package analysis_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/faultline/faultline/analysis"
	"github.com/faultline/faultline/evaluate"
	"github.com/faultline/faultline/sim"
	"github.com/faultline/faultline/store"
)

// demoEngine loads the demo's simulated incident (fx-rates-api, a
// third-party API that leaves no records, slows down) into an embedded
// store, as analyze demo does.
func demoEngine(t *testing.T) (*analysis.Engine, *evaluate.Case) {
	t.Helper()
	ctx := context.Background()
	inc, err := sim.Generate(sim.DemoConfig(time.Date(2026, 12, 2, 1, 30, 0, 0, time.UTC)))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := inc.WriteCase(dir); err != nil {
		t.Fatal(err)
	}
	c, err := evaluate.LoadCase(dir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "demo.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := evaluate.LoadFiles(ctx, st, c.Files, nil); err != nil {
		t.Fatal(err)
	}
	eng, err := analysis.New(st, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return eng, c
}

// TestTracesOfTheDemo: the list of the demo window's failing traces agrees
// with each trace's own analysis and with the filters; the silent
// fx-rates-api is charted from its callers' calls, its p95 leaving the
// baseline's band after the fault began.
func TestTracesOfTheDemo(t *testing.T) {
	eng, c := demoEngine(t)
	ctx := context.Background()
	w := c.Truth.Window
	all, err := eng.Traces(ctx, analysis.TracesQuery{From: w.From, To: w.To, Limit: analysis.MaxTraceRows})
	if err != nil {
		t.Fatal(err)
	}
	failing, err := eng.Traces(ctx, analysis.TracesQuery{From: w.From, To: w.To, Errors: true, Service: "pricing", Limit: analysis.MaxTraceRows})
	if err != nil {
		t.Fatal(err)
	}
	if all.Traces == 0 || failing.Matched == 0 || failing.Matched >= all.Matched || len(failing.Rows) != failing.Matched {
		t.Fatalf("%d traces, %d rows; failing through pricing: %d matched, %d rows", all.Traces, len(all.Rows), failing.Matched, len(failing.Rows))
	}
	for i, r := range failing.Rows {
		if !r.Failed || !slices.Contains(r.Services, "pricing") {
			t.Errorf("row %s: failed %v, services %q", r.TraceID, r.Failed, r.Services)
		}
		if i > 0 && r.DurationMs > failing.Rows[i-1].DurationMs {
			t.Errorf("rows not slowest first at %d", i)
		}
		if i < 3 { // each row says what its trace page says
			res, err := eng.Trace(ctx, r.TraceID)
			if err != nil || res.Failed != r.Failed || (res.Origin == nil) != (r.Origin == nil) || r.Origin != nil && (res.Origin.Service != r.Origin.Service || res.Origin.Message != r.Origin.Message) {
				t.Errorf("row %s says failed %v origin %+v; its trace page %v, %+v (%v)", r.TraceID, r.Failed, r.Origin, res.Failed, res.Origin, err)
			}
		}
	}
	slow, err := eng.Traces(ctx, analysis.TracesQuery{From: w.From, To: w.To, MinDuration: 2 * time.Second, Operation: "auth"})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range slow.Rows {
		if r.DurationMs < 2000 {
			t.Errorf("row %s lasted %.0f ms, under the 2 s asked", r.TraceID, r.DurationMs)
		}
	}
	if all.Baseline == nil {
		t.Fatal("no baseline before the demo's window")
	}
	var fx *analysis.ServiceStats
	for i := range all.Services {
		if all.Services[i].Service == c.Truth.RootCause.Service {
			fx = &all.Services[i]
		}
	}
	if fx == nil || fx.Band == nil || !fx.Band.HasP95 {
		t.Fatalf("%s is not charted with a baseline band: %+v", c.Truth.RootCause.Service, fx)
	}
	peak := slices.Max(fx.P95Ms)
	if peak < 2*fx.Band.P95Hi || fx.Onset.IsZero() || fx.Onset.Before(c.Truth.Onset.Add(-time.Minute)) {
		t.Errorf("%s: p95 peaks at %.0f ms against a band up to %.0f ms, onset %v (fault at %v)", fx.Service, peak, fx.Band.P95Hi, fx.Onset, c.Truth.Onset)
	}
}
