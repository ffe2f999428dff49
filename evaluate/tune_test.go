package evaluate

import (
	"math"
	"testing"

	"github.com/faultline/faultline/rootcause"
)

// TestSummarizeTuningLeavesEachSetOut builds three sets where a smaller
// min_decades helps two of them and hurts the third: the fold that leaves
// out the third picks the smaller value (and loses its cases), the folds
// that leave out either of the others keep the current value (the other
// two disagree, and a tie keeps the value as it is).
func TestSummarizeTuningLeavesEachSetOut(t *testing.T) {
	cur := currentValue("min_decades")
	if cur == 0 {
		t.Fatal("min_decades is not a tunable constant")
	}
	lower := cur - 1
	settings := []Setting{{"min_decades", lower}}
	rank := func(r int) CaseResult { return CaseResult{Rank: r} }
	var cases []CaseTuning
	add := func(set string, now, with int) {
		cases = append(cases, CaseTuning{Set: set, Now: rank(now), With: []CaseResult{rank(with)}})
	}
	// a: the lower value rights one of two cases; b: the same; c: it wrongs
	// both of its two cases.
	add("a", 1, 1)
	add("a", 2, 1)
	add("b", 1, 1)
	add("b", 3, 1)
	add("c", 1, 2)
	add("c", 1, 2)
	got := SummarizeTuning([]string{"a", "b", "c"}, settings, cases)
	if len(got.Constants) != 1 {
		t.Fatalf("%d constants scored, want 1", len(got.Constants))
	}
	c := got.Constants[0]
	if len(c.Values) != 2 || c.Values[0].Value != lower || c.Values[1].Value != cur {
		t.Fatalf("values %+v, want %g then the current %g", c.Values, lower, cur)
	}
	if c.Values[0].AC1 != 4.0/6 || c.Values[1].AC1 != 4.0/6 {
		t.Errorf("pooled AC@1 %.3f at %g and %.3f now, want 4/6 both", c.Values[0].AC1, lower, c.Values[1].AC1)
	}
	want := map[string]float64{"a": cur, "b": cur, "c": lower}
	for _, f := range c.Folds {
		if f.Picked != want[f.Set] {
			t.Errorf("leaving out %s picked %g, want %g", f.Set, f.Picked, want[f.Set])
		}
	}
	// Held out: a at the current value 1/2, b 1/2, c at the lower value 0/2.
	if math.Abs(c.HeldOutAC1-2.0/6) > 1e-9 || math.Abs(c.CurrentAC1-4.0/6) > 1e-9 {
		t.Errorf("held out %.3f, now %.3f; want 2/6 and 4/6", c.HeldOutAC1, c.CurrentAC1)
	}
}

func TestSetTunable(t *testing.T) {
	before := currentValue("older_share")
	restore, err := rootcause.SetTunable("older_share", 0.75)
	if err != nil {
		t.Fatal(err)
	}
	if got := currentValue("older_share"); got != 0.75 {
		t.Errorf("older_share is %g after setting 0.75", got)
	}
	restore()
	if got := currentValue("older_share"); got != before {
		t.Errorf("older_share is %g after restoring, want %g", got, before)
	}
	for _, bad := range []struct {
		name string
		v    float64
	}{{"no_such_constant", 1}, {"older_share", 0}, {"older_share", math.NaN()}} {
		if _, err := rootcause.SetTunable(bad.name, bad.v); err == nil {
			t.Errorf("SetTunable(%q, %g): no error", bad.name, bad.v)
		}
	}
}
