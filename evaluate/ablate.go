package evaluate

import (
	"context"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/faultline/faultline/correlate"
)

// CaseAblation is one case scored with every rule on and with each rule
// off in turn.
type CaseAblation struct {
	// Set is the case's set: the folder it was found under.
	Set string
	All CaseResult
	// Off is the result with each rule off, keyed by rule.
	Off map[string]CaseResult
}

// Ablate scores the case once with every rule on (opt.Rootcause) and
// with each of rules off, on the one store: its ranking, its kind and, for
// a variant without a rule of the per-trace analysis (correlate.Rules),
// its per-trace origins.
//
// It tests groups first: rules are switched off half at a time, and a
// group whose absence leaves the case as it was (the same candidates in
// the same order, the same kind, as many origins right) is taken to hold
// no rule whose absence alone changes it; only the groups that change it
// are split further.
// Most rules decide nothing in a given case, so a case costs a few
// analyses per rule that matters there, not one per rule. What this
// misses is a rule whose absence another's absence exactly undoes, in the
// one case. The analyses only read the store: they run side by side, as
// many as there are cores.
func (cs *CaseStore) Ablate(ctx context.Context, set string, rules []string) (*CaseAblation, error) {
	all, err := cs.Score(ctx, cs.opt.Rootcause)
	if err != nil {
		return nil, err
	}
	if err := cs.CheckOrigins(ctx, all, cs.opt.Rootcause.Off); err != nil {
		return nil, err
	}
	perTrace := correlate.Rules()
	a := &CaseAblation{Set: set, All: *all, Off: map[string]CaseResult{}}
	var mu sync.Mutex
	slots := make(chan struct{}, runtime.GOMAXPROCS(0))
	g, gctx := errgroup.WithContext(ctx)
	var split func(group []string) error
	split = func(group []string) error {
		ro := cs.opt.Rootcause
		ro.Off = maps.Clone(cs.opt.Rootcause.Off)
		if ro.Off == nil {
			ro.Off = map[string]bool{}
		}
		for _, r := range group {
			ro.Off[r] = true
		}
		slots <- struct{}{}
		r, err := cs.Score(gctx, ro)
		if err == nil {
			r.OriginsChecked, r.OriginsRight = all.OriginsChecked, all.OriginsRight
			if slices.ContainsFunc(group, func(rule string) bool { return slices.Contains(perTrace, rule) }) {
				err = cs.CheckOrigins(gctx, r, ro.Off)
			}
		}
		<-slots
		if err != nil {
			return fmt.Errorf("with %s off: %w", strings.Join(group, ", "), err)
		}
		if len(group) == 1 || sameOutcome(r, all) {
			mu.Lock()
			for _, rule := range group {
				a.Off[rule] = *r
			}
			mu.Unlock()
			return nil
		}
		half := len(group) / 2
		g.Go(func() error { return split(group[:half]) })
		return split(group[half:])
	}
	if len(rules) > 0 {
		g.Go(func() error { return split(rules) })
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return a, nil
}

// sameOutcome reports whether two results of a case rank the same
// candidates in the same order, with the same kind first, and get as many
// per-trace origins right.
func sameOutcome(a, b *CaseResult) bool {
	return a.Rank == b.Rank && a.TopKind == b.TopKind && slices.Equal(a.Top, b.Top) && a.OriginsRight == b.OriginsRight
}

// Ablation is what each rule is worth on a run's cases: the scores with
// it off beside those with every rule on. It is the document `analyze
// eval --ablate --json` prints.
type Ablation struct {
	Cases int `json:"cases"`
	// Sets are the sets in the order the per-set figures follow.
	Sets []string `json:"sets"`
	// All is the scores with every rule on.
	All VariantScore `json:"all_rules"`
	// Rules are the scores with each rule off, in the order of the rules.
	Rules []RuleScore `json:"rules"`
}

// VariantScore is the scores of one variant of the analysis.
type VariantScore struct {
	AC1 float64 `json:"ac1"`
	AC3 float64 `json:"ac3"`
	// KindAccuracy is null when no case names its kind (see Summary).
	KindAccuracy *float64 `json:"kind_accuracy"`
	// OriginAccuracy is null when no case labels its failing traces.
	OriginAccuracy *float64 `json:"origin_accuracy"`
	// SetAC1 is AC@1 per set, in the order of Ablation.Sets.
	SetAC1 []float64 `json:"set_ac1"`
}

// RuleScore is the scores with one rule off and their change against all
// rules on (negative: the rule helps).
type RuleScore struct {
	Rule string `json:"rule"`
	VariantScore
	DeltaAC1  float64  `json:"delta_ac1"`
	DeltaAC3  float64  `json:"delta_ac3"`
	DeltaKind *float64 `json:"delta_kind_accuracy"`
	// DeltaOrigin is the change of the per-trace origin accuracy.
	DeltaOrigin *float64 `json:"delta_origin_accuracy"`
	// Changed lists the cases whose rank of the truth, kind verdict or
	// origins right changed with the rule off: "case: rank 1 -> 3".
	Changed []string `json:"changed,omitempty"`
}

// SummarizeAblation scores the cases' variants, rules in the given order.
func SummarizeAblation(sets, rules []string, cases []CaseAblation) *Ablation {
	a := &Ablation{Cases: len(cases), Sets: sets}
	a.All = variantScore(sets, cases, func(c CaseAblation) CaseResult { return c.All })
	for _, rule := range rules {
		v := variantScore(sets, cases, func(c CaseAblation) CaseResult { return c.Off[rule] })
		rs := RuleScore{Rule: rule, VariantScore: v, DeltaAC1: v.AC1 - a.All.AC1, DeltaAC3: v.AC3 - a.All.AC3}
		rs.DeltaKind = difference(v.KindAccuracy, a.All.KindAccuracy)
		rs.DeltaOrigin = difference(v.OriginAccuracy, a.All.OriginAccuracy)
		for _, c := range cases {
			if off := c.Off[rule]; off.Rank != c.All.Rank || off.KindRight != c.All.KindRight || off.OriginsRight != c.All.OriginsRight {
				rs.Changed = append(rs.Changed, changeOf(c.All, off))
			}
		}
		a.Rules = append(a.Rules, rs)
	}
	return a
}

// difference is off less on, nil when either is unknown.
func difference(off, on *float64) *float64 {
	if off == nil || on == nil {
		return nil
	}
	d := *off - *on
	return &d
}

// variantScore scores one variant of cases, pooled and per set.
func variantScore[C interface{ setName() string }](sets []string, cases []C, pick func(C) CaseResult) VariantScore {
	var all []CaseResult
	per := map[string][]CaseResult{}
	for _, c := range cases {
		all = append(all, pick(c))
		per[c.setName()] = append(per[c.setName()], pick(c))
	}
	s := Summarize(all)
	v := VariantScore{AC1: s.AC["1"], AC3: s.AC["3"], KindAccuracy: s.KindAccuracy, OriginAccuracy: s.OriginAccuracy}
	for _, set := range sets {
		v.SetAC1 = append(v.SetAC1, Summarize(per[set]).AC["1"])
	}
	return v
}

func (c CaseAblation) setName() string { return c.Set }

// changeOf says how a case's result changed from on to off.
func changeOf(on, off CaseResult) string {
	s := fmt.Sprintf("%s: rank %d -> %d", on.Case, on.Rank, off.Rank)
	if on.KindRight != off.KindRight {
		s += fmt.Sprintf(", kind %s -> %s", verdict(on.KindRight), verdict(off.KindRight))
	}
	if on.OriginsRight != off.OriginsRight {
		s += fmt.Sprintf(", origins right %d -> %d of %d", on.OriginsRight, off.OriginsRight, on.OriginsChecked)
	}
	return s
}

func verdict(right bool) string {
	if right {
		return "right"
	}
	return "wrong"
}
