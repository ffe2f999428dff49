package evaluate

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/faultline/faultline/correlate"
	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/sim"
)

// TestAblateGroupsAgreeWithEachRuleAlone checks the group testing of
// Ablate against its definition: on a simulated incident, each rule's
// result equals the case scored with that rule alone switched off, for
// every rule of both packages (its ranking, kind and per-trace origins),
// and some rule decides the case.
func TestAblateGroupsAgreeWithEachRuleAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates an incident and analyses it once per rule; skipped with -short")
	}
	f, ok := sim.FaultNamed("dependency-timeout")
	if !ok {
		t.Fatal("the simulator knows no fault dependency-timeout")
	}
	dir := filepath.Join(t.TempDir(), "case")
	writeSimCase(t, dir, sim.Config{Seed: 4300, Fault: f.Kind, FaultType: f.Type})
	c, err := LoadCase(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cs, err := OpenCase(ctx, c, Options{WorkDir: t.TempDir(), Origins: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	rules := slices.Concat(rootcause.Rules(), correlate.Rules())
	a, err := cs.Ablate(ctx, "set", rules)
	if err != nil {
		t.Fatal(err)
	}
	deciding := 0
	for _, rule := range rules {
		got, ok := a.Off[rule]
		if !ok {
			t.Fatalf("no result with %s off", rule)
		}
		off := map[string]bool{rule: true}
		want, err := cs.Score(ctx, rootcause.Options{Off: off})
		if err != nil {
			t.Fatal(err)
		}
		if err := cs.CheckOrigins(ctx, want, off); err != nil {
			t.Fatal(err)
		}
		if !sameOutcome(&got, want) {
			t.Errorf("%s off: the ablation says rank %d %q (%s), %d origins right; scored alone rank %d %q (%s), %d origins right",
				rule, got.Rank, got.Top, got.TopKind, got.OriginsRight, want.Rank, want.Top, want.TopKind, want.OriginsRight)
		}
		if !sameOutcome(want, &a.All) {
			deciding++
		}
	}
	if a.All.Rank != 1 || deciding == 0 || a.All.OriginsChecked == 0 {
		t.Errorf("all rules on: rank %d, %d origins checked; %d rules change the case when off; want 1, some and some",
			a.All.Rank, a.All.OriginsChecked, deciding)
	}
}
