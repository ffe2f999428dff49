package evaluate

import (
	"context"
	"github.com/faultline/faultline/internal/testenv"
	"path/filepath"
	"testing"
	"time"

	"github.com/faultline/faultline/sim"
)

// Accuracy floors, measured on this code and asserted with a margin so
// that a change that makes the analysis worse fails here. The numbers are
// in the README; raise the floors when the analysis gets better.
const (
	nezhaAC1Floor     = 0.75
	nezhaAC3Floor     = 0.92
	simAC1Floor       = 0.875
	simOriginAccFloor = 0.97
)

// TestNezhaAccuracy runs the whole pipeline (ingest, store, correlate,
// rootcause) on the 28 labelled TrainTicket faults of shared/datasets.
func TestNezhaAccuracy(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 28 real incidents; skipped with -short")
	}
	s := runAll(t, []string{testenv.Datasets(t, "nezha-tt")})
	t.Logf("nezha-tt: %d cases AC@1 %.2f AC@3 %.2f AC@5 %.2f Avg@5 %.2f", s.Cases, s.AC["1"], s.AC["3"], s.AC["5"], s.Avg5)
	for g, f := range s.PerFault {
		t.Logf("  %-16s %2d cases AC@1 %.2f AC@3 %.2f", g, f.Cases, f.AC1, f.AC3)
	}
	if s.Cases != 28 {
		t.Fatalf("found %d cases, want 28", s.Cases)
	}
	if s.AC["1"] < nezhaAC1Floor || s.AC["3"] < nezhaAC3Floor {
		t.Errorf("nezha-tt AC@1 %.2f AC@3 %.2f, below the floors %.2f / %.2f", s.AC["1"], s.AC["3"], nezhaAC1Floor, nezhaAC3Floor)
	}
}

// TestSimulatorAccuracy generates one incident of every fault kind the
// simulator knows, on seeds the analysis was not developed on, and scores
// the ranking and the per-trace origins.
func TestSimulatorAccuracy(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates and analyses 8 incidents; skipped with -short")
	}
	dir := t.TempDir()
	for i, k := range sim.FaultKinds() {
		inc, err := sim.Generate(sim.Config{Seed: int64(9000 + i), Fault: k, Baseline: 10 * time.Minute,
			Window: 5 * time.Minute, TracesPerSecond: 3})
		if err != nil {
			t.Fatal(err)
		}
		if err := inc.WriteCase(filepath.Join(dir, string(k))); err != nil {
			t.Fatal(err)
		}
	}
	s := runAll(t, []string{dir})
	if s.OriginAccuracy == nil {
		t.Fatal("the simulated cases label their failing traces, but no origin was checked")
	}
	t.Logf("simulator: %d cases AC@1 %.2f AC@3 %.2f Avg@5 %.2f origin accuracy %.2f", s.Cases, s.AC["1"], s.AC["3"], s.Avg5, *s.OriginAccuracy)
	for _, r := range s.PerCase {
		t.Logf("  %-22s truth %-22s rank %d top %v", r.Case, r.Truth, r.Rank, r.Top)
	}
	if s.AC["1"] < simAC1Floor || *s.OriginAccuracy < simOriginAccFloor {
		t.Errorf("simulator AC@1 %.2f origin accuracy %.2f, below the floors %.2f / %.2f", s.AC["1"], *s.OriginAccuracy, simAC1Floor, simOriginAccFloor)
	}
}

func runAll(t *testing.T, paths []string) *Summary {
	t.Helper()
	dirs, err := FindCases(paths)
	if err != nil {
		t.Fatal(err)
	}
	var rs []CaseResult
	for _, d := range dirs {
		c, err := LoadCase(d)
		if err != nil {
			t.Fatal(err)
		}
		r, err := RunCase(context.Background(), c, Options{WorkDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, *r)
	}
	return Summarize(rs)
}
