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
// every rule of both packages, and some rule decides the case.
func TestAblateGroupsAgreeWithEachRuleAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates an incident and analyses it once per rule; skipped with -short")
	}
	f, ok := sim.FaultNamed("network-delay")
	if !ok {
		t.Fatal("the simulator knows no fault network-delay")
	}
	dir := filepath.Join(t.TempDir(), "case")
	writeSimCase(t, dir, sim.Config{Seed: 4300, Fault: f.Kind, FaultType: f.Type})
	c, err := LoadCase(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cs, err := OpenCase(ctx, c, Options{WorkDir: t.TempDir()})
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
		want, err := cs.Score(ctx, rootcause.Options{Off: map[string]bool{rule: true}})
		if err != nil {
			t.Fatal(err)
		}
		if !sameOutcome(&got, want) {
			t.Errorf("%s off: the ablation says rank %d %q (%s), scored alone rank %d %q (%s)",
				rule, got.Rank, got.Top, got.TopKind, want.Rank, want.Top, want.TopKind)
		}
		if !sameOutcome(want, &a.All) {
			deciding++
		}
	}
	if a.All.Rank != 1 || deciding == 0 {
		t.Errorf("all rules on: rank %d; %d rules change the case when off; want 1 and some", a.All.Rank, deciding)
	}
}
