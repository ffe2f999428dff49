package evaluate

import (
	"cmp"
	"slices"
)

// Summary is the document `analyze eval --json` prints.
type Summary struct {
	Cases int                `json:"cases"`
	AC    map[string]float64 `json:"ac"`
	Avg5  float64            `json:"avg5"`
	// OriginAccuracy is null when no case labels its failing traces.
	OriginAccuracy *float64     `json:"origin_accuracy"`
	PerCase        []CaseResult `json:"per_case"`
	// KindAccuracy is the share of the cases whose truth names a kind
	// where the first candidate is the true service with that kind; null
	// when no case names one.
	KindAccuracy *float64 `json:"kind_accuracy"`
	// PerFault breaks AC@1/3/5 down by fault type (or kind).
	PerFault map[string]FaultScore `json:"per_fault,omitempty"`
	// Baselines scores each baseline method (BaselineMethods) on the same
	// cases, keyed by method; absent when the run ranked none.
	Baselines map[string]*Summary `json:"baselines,omitempty"`
}

// FaultScore is AC@k over the cases of one fault type.
type FaultScore struct {
	Cases int     `json:"cases"`
	AC1   float64 `json:"ac1"`
	AC3   float64 `json:"ac3"`
	AC5   float64 `json:"ac5"`
}

// Summarize computes AC@k (the share of cases with the truth in the top k),
// Avg@5 (the mean of AC@1..AC@5) and per-trace origin accuracy.
func Summarize(results []CaseResult) *Summary {
	s := &Summary{Cases: len(results), AC: map[string]float64{}, PerCase: results, PerFault: map[string]FaultScore{}}
	if len(results) == 0 {
		return s
	}
	var checked, right, kinds, kindsRight int
	acAt := func(rs []CaseResult, k int) float64 {
		n := 0
		for _, r := range rs {
			if r.Rank >= 1 && r.Rank <= k {
				n++
			}
		}
		return float64(n) / float64(len(rs))
	}
	for k := 1; k <= 5; k++ {
		v := acAt(results, k)
		s.Avg5 += v / 5
		if k == 1 || k == 3 || k == 5 {
			s.AC[string(rune('0'+k))] = v
		}
	}
	groups := map[string][]CaseResult{}
	for _, r := range results {
		if r.Kind != "" {
			kinds++
			if r.KindRight {
				kindsRight++
			}
		}
		checked += r.OriginsChecked
		right += r.OriginsRight
		g := cmp.Or(r.FaultType, r.Kind, "unlabelled")
		groups[g] = append(groups[g], r)
	}
	for g, rs := range groups {
		s.PerFault[g] = FaultScore{Cases: len(rs), AC1: acAt(rs, 1), AC3: acAt(rs, 3), AC5: acAt(rs, 5)}
	}
	if kinds > 0 {
		v := float64(kindsRight) / float64(kinds)
		s.KindAccuracy = &v
	}
	if checked > 0 {
		v := float64(right) / float64(checked)
		s.OriginAccuracy = &v
	}
	slices.SortFunc(s.PerCase, func(a, b CaseResult) int { return cmp.Compare(a.Case, b.Case) })
	s.Baselines = summarizeBaselines(results)
	return s
}

// summarizeBaselines summarizes each baseline method's results of the
// cases that have them; nil when none has.
func summarizeBaselines(results []CaseResult) map[string]*Summary {
	per := map[string][]CaseResult{}
	for _, r := range results {
		for m, b := range r.Baselines {
			per[m] = append(per[m], *b)
		}
	}
	if len(per) == 0 {
		return nil
	}
	out := map[string]*Summary{}
	for m, rs := range per {
		out[m] = Summarize(rs)
	}
	return out
}
