package analysis_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/faultline/faultline/analysis"
	"github.com/faultline/faultline/evaluate"
	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/sim"
	"github.com/faultline/faultline/store"
)

// demoStore simulates the demo incident, writes it as files and loads them
// through the ingest path into a fresh embedded store.
func demoStore(t *testing.T) (store.Store, *evaluate.Case) {
	t.Helper()
	ctx := context.Background()
	inc, err := sim.Generate(sim.DemoConfig(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := inc.WriteCase(filepath.Join(dir, "case")); err != nil {
		t.Fatal(err)
	}
	c, err := evaluate.LoadCase(filepath.Join(dir, "case"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, filepath.Join(dir, "s.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := evaluate.LoadFiles(ctx, st, c.Files, nil); err != nil {
		t.Fatal(err)
	}
	return st, c
}

func TestEngineIncidentTraceRunbook(t *testing.T) {
	ctx := context.Background()
	st, c := demoStore(t)
	eng, err := analysis.New(st, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := eng.Incident(ctx, rootcause.Query{From: c.Truth.Window.From, To: c.Truth.Window.To, Top: 5})
	if err != nil {
		t.Fatal(err)
	}
	if rep.FailedTraces == 0 || len(rep.Candidates) == 0 {
		t.Fatalf("no failing traces or candidates: %+v", rep)
	}
	found := 0
	for i, cand := range rep.Candidates {
		if cand.Runbook == nil || cand.Runbook.ID == "" || cand.Runbook.URL == "" {
			t.Fatalf("candidate %d has no runbook link: %+v", i, cand)
		}
		if cand.Service == c.Truth.RootCause.Service && found == 0 {
			found = i + 1
		}
		// The saved runbook is there by its id and by the candidate's id.
		for _, id := range []string{cand.Runbook.ID, cand.ID} {
			rb, err := eng.Runbook(ctx, id)
			if err != nil {
				t.Fatalf("runbook %q of candidate %d: %v", id, i, err)
			}
			if rb.Service != cand.Service || rb.Kind != cand.Kind {
				t.Fatalf("runbook %q is for %s/%s, want %s/%s", id, rb.Service, rb.Kind, cand.Service, cand.Kind)
			}
		}
	}
	if found == 0 || found > 3 {
		t.Errorf("true root cause %s ranked %d (0 = absent) in %v", c.Truth.RootCause.Service, found, services(rep))
	}
	ex := rep.Candidates[0].ExampleTraces
	if len(ex) == 0 {
		t.Fatal("the top candidate names no example trace")
	}
	res, err := eng.Trace(ctx, ex[0])
	if err != nil {
		t.Fatal(err)
	}
	if !res.Failed || res.Origin == nil {
		t.Fatalf("example trace %s is not explained as failed: %+v", ex[0], res)
	}
	if _, err := eng.Trace(ctx, schema.TraceID("0123456789abcdef0123456789abcdef")); !errors.Is(err, schema.ErrNotFound) {
		t.Fatalf("unknown trace: got %v, want ErrNotFound", err)
	}
	if _, err := eng.Runbook(ctx, "no-such-runbook-000000000000"); !errors.Is(err, schema.ErrNotFound) {
		t.Fatalf("unknown runbook: got %v, want ErrNotFound", err)
	}
	rb, err := eng.Runbook(ctx, string(schema.KindDBPoolExhaustion))
	if err != nil || !rb.Generic || rb.Kind != schema.KindDBPoolExhaustion {
		t.Fatalf("generic runbook of a kind: %+v, %v", rb, err)
	}
}

func TestEngineEmptyWindow(t *testing.T) {
	st, c := demoStore(t)
	eng, err := analysis.New(st, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	from := c.Truth.Window.To.Add(24 * time.Hour)
	_, err = eng.Incident(context.Background(), rootcause.Query{From: from, To: from.Add(time.Hour)})
	if !errors.Is(err, rootcause.ErrNoData) {
		t.Fatalf("got %v, want ErrNoData", err)
	}
}

func services(rep *rootcause.Report) []string {
	var out []string
	for _, c := range rep.Candidates {
		out = append(out, c.Service)
	}
	return out
}
