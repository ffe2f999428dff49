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
	nezhaAC1Floor     = 0.86
	nezhaAC3Floor     = 0.92
	nezhaOBAC1Floor   = 0.95
	nezhaOBAC3Floor   = 0.95
	simAC1Floor       = 0.92
	simOriginAccFloor = 0.93
	simKindFloor      = 0.84
	seedAC1Floor      = 0.88
	seedKindFloor     = 0.77
)

// TestNezhaAccuracy runs the whole pipeline (ingest, store, correlate,
// rootcause) on the 28 labelled TrainTicket faults of shared/datasets.
func TestNezhaAccuracy(t *testing.T) { realAccuracy(t, "nezha-tt", 28, nezhaAC1Floor, nezhaAC3Floor) }

// TestNezhaOBAccuracy runs the whole pipeline on the 22 labelled Online
// Boutique faults (spans only: network delay, CPU contention, CPU hog).
func TestNezhaOBAccuracy(t *testing.T) {
	realAccuracy(t, "nezha-ob", 22, nezhaOBAC1Floor, nezhaOBAC3Floor)
}

// realAccuracy scores one real data set of shared/datasets against floors.
func realAccuracy(t *testing.T, set string, cases int, ac1, ac3 float64) {
	if testing.Short() {
		t.Skipf("loads %d real incidents; skipped with -short", cases)
	}
	s := runAll(t, []string{testenv.Datasets(t, set)})
	t.Logf("%s: %d cases AC@1 %.2f AC@3 %.2f AC@5 %.2f Avg@5 %.2f", set, s.Cases, s.AC["1"], s.AC["3"], s.AC["5"], s.Avg5)
	beatsBaselines(t, set, s)
	for g, f := range s.PerFault {
		t.Logf("  %-16s %2d cases AC@1 %.2f AC@3 %.2f", g, f.Cases, f.AC1, f.AC3)
	}
	if s.Cases != cases {
		t.Fatalf("found %d cases, want %d", s.Cases, cases)
	}
	if s.AC["1"] < ac1 || s.AC["3"] < ac3 {
		t.Errorf("%s AC@1 %.2f AC@3 %.2f, below the floors %.2f / %.2f", set, s.AC["1"], s.AC["3"], ac1, ac3)
	}
}

// TestSimulatorAccuracy generates one incident of every fault the
// simulator knows (every variant of every kind, the silent ones included),
// across its system topologies, on seeds the analysis was not developed
// on, and scores the ranking, the top candidate's kind and the per-trace
// origins.
func TestSimulatorAccuracy(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates and analyses 13 incidents; skipped with -short")
	}
	dir := t.TempDir()
	topos := sim.Topologies()
	for i, f := range sim.Faults() {
		writeSimCase(t, filepath.Join(dir, f.Type), sim.Config{Seed: int64(9000 + i), Fault: f.Kind, FaultType: f.Type,
			Topology: topos[i%len(topos)]})
	}
	s := runAll(t, []string{dir})
	if s.OriginAccuracy == nil {
		t.Fatal("the simulated cases label their failing traces, but no origin was checked")
	}
	if s.KindAccuracy == nil {
		t.Fatal("the simulated cases name their kind, but no kind was scored")
	}
	t.Logf("simulator: %d cases AC@1 %.2f AC@3 %.2f Avg@5 %.2f origin accuracy %.2f top kind right %.2f",
		s.Cases, s.AC["1"], s.AC["3"], s.Avg5, *s.OriginAccuracy, *s.KindAccuracy)
	beatsBaselines(t, "simulator", s)
	for _, r := range s.PerCase {
		t.Logf("  %-22s truth %-22s rank %d kind %-20s rule %-12s top %v", r.Case, r.Truth, r.Rank, r.TopKind, r.Rule, r.Top)
	}
	if s.AC["1"] < simAC1Floor || *s.OriginAccuracy < simOriginAccFloor || *s.KindAccuracy < simKindFloor {
		t.Errorf("simulator AC@1 %.2f origin accuracy %.2f top kind right %.2f, below the floors %.2f / %.2f / %.2f",
			s.AC["1"], *s.OriginAccuracy, *s.KindAccuracy, simAC1Floor, simOriginAccFloor, simKindFloor)
	}
}

// TestSeedSystemsAccuracy generates one incident of every fault of each
// of the four seed systems (sim.SeedTopologies: per-region breakers, a
// namespace breaker, a classifier's silent new version, a payment
// timeout with retries and a dead-letter queue), and scores them as
// TestSimulatorAccuracy does: the analysis at its floor, and never below
// a plain baseline method.
func TestSeedSystemsAccuracy(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates and analyses the seed systems' incidents; skipped with -short")
	}
	dir := t.TempDir()
	i := 0
	for _, topo := range sim.SeedTopologies() {
		for _, f := range sim.TopologyFaults(topo) {
			writeSimCase(t, filepath.Join(dir, topo+"-"+f.Type), sim.Config{Seed: int64(9500 + i), Fault: f.Kind, FaultType: f.Type,
				Topology: topo})
			i++
		}
	}
	s := runAll(t, []string{dir})
	t.Logf("seed systems: %d cases AC@1 %.2f AC@3 %.2f kind right %.2f", s.Cases, s.AC["1"], s.AC["3"], *s.KindAccuracy)
	for _, r := range s.PerCase {
		t.Logf("  %-40s truth %-22s rank %d kind %-20s rule %-12s top %v", r.Case, r.Truth, r.Rank, r.TopKind, r.Rule, r.Top)
	}
	beatsBaselines(t, "seed systems", s)
	if s.AC["1"] < seedAC1Floor || *s.KindAccuracy < seedKindFloor {
		t.Errorf("seed systems AC@1 %.2f top kind right %.2f, below the floors %.2f / %.2f",
			s.AC["1"], *s.KindAccuracy, seedAC1Floor, seedKindFloor)
	}
}

// writeSimCase simulates a small incident of cfg (a ten-minute baseline,
// a five-minute window, three traces a second) and writes it as a case
// folder at dir.
func writeSimCase(t *testing.T, dir string, cfg sim.Config) *sim.Incident {
	t.Helper()
	cfg.Baseline, cfg.Window, cfg.TracesPerSecond = 10*time.Minute, 5*time.Minute, 3
	inc, err := sim.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := inc.WriteCase(dir); err != nil {
		t.Fatal(err)
	}
	return inc
}

// beatsBaselines checks that the analysis ranks the truth first at least
// as often as every plain baseline method does on the same cases.
func beatsBaselines(t *testing.T, set string, s *Summary) {
	t.Helper()
	if len(s.Baselines) != len(BaselineMethods()) {
		t.Fatalf("%s: baselines scored %d methods, want %d", set, len(s.Baselines), len(BaselineMethods()))
	}
	for _, m := range BaselineMethods() {
		b := s.Baselines[m]
		t.Logf("%s: baseline %-20s AC@1 %.2f AC@3 %.2f AC@5 %.2f Avg@5 %.2f", set, m, b.AC["1"], b.AC["3"], b.AC["5"], b.Avg5)
		if b.AC["1"] > s.AC["1"] {
			t.Errorf("%s: the baseline %s ranks the truth first more often than the analysis: AC@1 %.2f against %.2f",
				set, m, b.AC["1"], s.AC["1"])
		}
	}
}

// runAll scores the cases under paths, each loaded once, with the
// baseline methods beside the analysis.
func runAll(t *testing.T, paths []string) *Summary {
	t.Helper()
	dirs, err := FindCases(paths)
	if err != nil {
		t.Fatal(err)
	}
	var rs []CaseResult
	for _, d := range dirs {
		rs = append(rs, *runCase(t, d))
	}
	return Summarize(rs)
}

// runCase scores one case folder, with the baseline methods beside the
// analysis.
func runCase(t *testing.T, dir string) *CaseResult {
	t.Helper()
	c, err := LoadCase(dir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := RunCase(context.Background(), c, Options{WorkDir: t.TempDir(), Baselines: true})
	if err != nil {
		t.Fatal(err)
	}
	return r
}
