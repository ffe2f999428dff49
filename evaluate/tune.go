package evaluate

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/faultline/faultline/rootcause"
)

// Setting is one value of one of the ranking's chosen constants
// (rootcause.Tunables).
type Setting struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
}

// CaseTuning is one case scored with the constants as they are and with
// each setting in turn.
type CaseTuning struct {
	Set string
	Now CaseResult
	// With is the result with each setting, in the order asked.
	With []CaseResult
}

// Tune scores the case with the constants as they are, then with each
// setting alone, one analysis at a time: a setting holds for every
// analysis of the process while it is set (rootcause.SetTunable), so
// nothing else may analyse meanwhile.
func (cs *CaseStore) Tune(ctx context.Context, set string, settings []Setting) (*CaseTuning, error) {
	now, err := cs.Score(ctx, cs.opt.Rootcause)
	if err != nil {
		return nil, err
	}
	ct := &CaseTuning{Set: set, Now: *now}
	for _, s := range settings {
		if s.Value == currentValue(s.Name) {
			ct.With = append(ct.With, *now)
			continue
		}
		restore, err := rootcause.SetTunable(s.Name, s.Value)
		if err != nil {
			return nil, err
		}
		r, err := cs.Score(ctx, cs.opt.Rootcause)
		restore()
		if err != nil {
			return nil, fmt.Errorf("with %s = %g: %w", s.Name, s.Value, err)
		}
		ct.With = append(ct.With, *r)
	}
	return ct, nil
}

// Tuning is what `analyze eval --tune` prints: each constant's values
// scored on every set, and the value leave-one-set-out picks for each set.
type Tuning struct {
	Cases     int             `json:"cases"`
	Sets      []string        `json:"sets"`
	Constants []ConstantScore `json:"constants"`
}

// ConstantScore is one constant: its scores at each value tried (the
// value it has among them) and the leave-one-set-out folds.
type ConstantScore struct {
	Name    string         `json:"name"`
	Current float64        `json:"current"`
	Values  []ValueScore   `json:"values"`
	Folds   []HeldOutScore `json:"folds"`
	// HeldOutAC1 is the pooled AC@1 of the held-out sets, each at the value
	// picked without it; CurrentAC1 the same cases at the current value.
	HeldOutAC1 float64 `json:"held_out_ac1"`
	CurrentAC1 float64 `json:"current_ac1"`
}

// ValueScore is the scores at one value of a constant.
type ValueScore struct {
	Value float64 `json:"value"`
	VariantScore
}

// HeldOutScore is one fold: the value picked on every set but Set, and
// Set's AC@1 at it and at the current value.
type HeldOutScore struct {
	Set        string  `json:"set"`
	Picked     float64 `json:"picked"`
	AC1        float64 `json:"ac1"`
	CurrentAC1 float64 `json:"current_ac1"`
}

// SummarizeTuning scores each constant's values and picks, for each set,
// the value that scores best on all the other sets (pooled AC@1, then kind
// accuracy; on a tie the current value, else the smaller), measured on the
// set left out.
func SummarizeTuning(sets []string, settings []Setting, cases []CaseTuning) *Tuning {
	t := &Tuning{Cases: len(cases), Sets: sets}
	var names []string
	for _, s := range settings {
		if !slices.Contains(names, s.Name) {
			names = append(names, s.Name)
		}
	}
	for _, name := range names {
		cur := currentValue(name)
		cs := ConstantScore{Name: name, Current: cur}
		// pickers per value: the current one, then each setting of name.
		type variant struct {
			value float64
			pick  func(CaseTuning) CaseResult
		}
		now := func(c CaseTuning) CaseResult { return c.Now }
		vs := []variant{{cur, now}}
		for i, s := range settings {
			if s.Name == name && s.Value != cur {
				vs = append(vs, variant{s.Value, func(c CaseTuning) CaseResult { return c.With[i] }})
			}
		}
		slices.SortStableFunc(vs, func(a, b variant) int { return cmp.Compare(a.value, b.value) })
		for _, v := range vs {
			cs.Values = append(cs.Values, ValueScore{Value: v.value, VariantScore: variantScore(sets, cases, v.pick)})
		}
		var heldRight, curRight float64 // held-out cases right, at the picked value and now
		held := 0
		for _, out := range sets {
			var rest, in []CaseTuning
			for _, c := range cases {
				if c.Set == out {
					in = append(in, c)
				} else {
					rest = append(rest, c)
				}
			}
			best := -1
			var bestAC, bestKind float64
			for i, v := range vs {
				s := variantScore(nil, rest, v.pick)
				kind := 0.0
				if s.KindAccuracy != nil {
					kind = *s.KindAccuracy
				}
				better := best < 0 || s.AC1 > bestAC+1e-9 ||
					s.AC1 > bestAC-1e-9 && (kind > bestKind+1e-9 || kind > bestKind-1e-9 && v.value == cur)
				if better {
					best, bestAC, bestKind = i, s.AC1, kind
				}
			}
			f := HeldOutScore{Set: out, Picked: vs[best].value,
				AC1: variantScore(nil, in, vs[best].pick).AC1, CurrentAC1: variantScore(nil, in, now).AC1}
			heldRight += f.AC1 * float64(len(in))
			curRight += f.CurrentAC1 * float64(len(in))
			held += len(in)
			cs.Folds = append(cs.Folds, f)
		}
		if held > 0 {
			cs.HeldOutAC1 = heldRight / float64(held)
			cs.CurrentAC1 = curRight / float64(held)
		}
		t.Constants = append(t.Constants, cs)
	}
	return t
}

// currentValue is the named constant's value now (0 if there is none).
func currentValue(name string) float64 {
	for _, t := range rootcause.Tunables() {
		if t.Name == name {
			return t.Value
		}
	}
	return 0
}

func (c CaseTuning) setName() string { return c.Set }
