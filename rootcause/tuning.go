package rootcause

import (
	"fmt"
	"strings"
)

// The ranking's constants that are chosen from data rather than derived:
// how sure a timing test must be to count and to count whole, what counts
// as a slow sample, and how much weaker forms of evidence weigh. They are
// variables only so that `analyze eval --tune` can measure each by
// leave-one-set-out (choose on all sets but one, measure on that one;
// docs/tuning.md); nothing else sets them.
var (
	// minDecades is how surely (-log10 of the tail's p-value) a set's slow
	// samples must exceed what chance gives for the set to have slowed;
	// fullDecades is where its evidence counts whole. Fewer samples give
	// less sure evidence, never none: no sample size is required.
	minDecades  = 3.0
	fullDecades = 5.0
	// slowFactor: a slow sample exceeds this times the baseline's p95
	// (plus slowFloorNs).
	slowFactor = 1.1
	// olderShare is what a change judged against the baseline's older half
	// counts for: the newer half, nearer the window, disagrees.
	olderShare = 0.5
	// explainedShare is what is left of a behaviour change that a callee's
	// trouble can explain.
	explainedShare = 0.25
	// chainFloor is the least a vote weighs in finding where failures lead
	// (pointerChains): a trace of usual noise explains nothing new, but its
	// errors still show which way its failures point.
	chainFloor = 0.1
	// newVoteWeight is the novelty weight from which a vote is news: the
	// baseline's rate explains at most half of its kind of error.
	newVoteWeight = 0.5
	// symptomUnit is what a symptom signal adds to the score per unit of
	// its weight, at most: new_errors in full (1.5) adds 0.043.
	symptomUnit = 0.2 / 7
)

// tunable is one of the variables above and its name.
type tunable struct {
	name string
	v    *float64
}

// tunables names the variables above, in the order Tunables lists them.
func tunables() []tunable {
	return []tunable{
		{"min_decades", &minDecades},
		{"full_decades", &fullDecades},
		{"slow_factor", &slowFactor},
		{"older_share", &olderShare},
		{"explained_share", &explainedShare},
		{"chain_floor", &chainFloor},
		{"new_vote_weight", &newVoteWeight},
		{"symptom_unit", &symptomUnit},
	}
}

// Tunable is one of the ranking's chosen constants and its value.
type Tunable struct {
	Name  string
	Value float64
}

// Tunables lists the chosen constants with their current values.
func Tunables() []Tunable {
	var out []Tunable
	for _, t := range tunables() {
		out = append(out, Tunable{t.name, *t.v})
	}
	return out
}

// SetTunable sets the named constant to v for every analysis of the
// process and returns the function that puts back its value. It is for
// `analyze eval --tune` only, and must not be called while an analysis
// runs: analyses read the constants without a lock.
func SetTunable(name string, v float64) (restore func(), err error) {
	var names []string
	for _, t := range tunables() {
		if t.name != name {
			names = append(names, t.name)
			continue
		}
		if !(v > 0) || v > 1e6 {
			return nil, fmt.Errorf("tunable %s: %v is not a positive number", name, v)
		}
		old := *t.v
		*t.v = v
		return func() { *t.v = old }, nil
	}
	return nil, fmt.Errorf("no tunable constant %q (there are %s)", name, strings.Join(names, ", "))
}
