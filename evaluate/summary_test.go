package evaluate

import (
	"math"
	"testing"
)

func TestSummarize(t *testing.T) {
	rs := []CaseResult{
		{Case: "a", FaultType: "x", Rank: 1, OriginsChecked: 10, OriginsRight: 9},
		{Case: "b", FaultType: "x", Rank: 3, OriginsChecked: 10, OriginsRight: 5},
		{Case: "c", FaultType: "y", Rank: 0},
		{Case: "d", FaultType: "y", Rank: 5},
	}
	s := Summarize(rs)
	want := map[string]float64{"1": 0.25, "3": 0.5, "5": 0.75}
	for k, v := range want {
		if s.AC[k] != v {
			t.Errorf("AC@%s = %v, want %v", k, s.AC[k], v)
		}
	}
	// Avg@5 is the mean of AC@1..AC@5: .25 .25 .5 .5 .75
	if math.Abs(s.Avg5-0.45) > 1e-9 {
		t.Errorf("Avg@5 = %v, want 0.45", s.Avg5)
	}
	if s.OriginAccuracy == nil || *s.OriginAccuracy != 0.7 {
		t.Errorf("origin accuracy = %v, want 0.7", s.OriginAccuracy)
	}
	if f := s.PerFault["x"]; f.Cases != 2 || f.AC1 != 0.5 || f.AC3 != 1 {
		t.Errorf("per fault x = %+v", f)
	}
	if s := Summarize(nil); s.Cases != 0 || s.Avg5 != 0 || s.OriginAccuracy != nil {
		t.Errorf("empty summary = %+v", s)
	}
}
