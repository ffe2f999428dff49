package correlate

import "slices"

// ruleVoteDescend moves the vote down the chain.
//
// Condition: from the suspect settled so far, while a deeper service is
// reached, through it, by at least half of the walks that decided (those
// that did not stop at it on a blind symptom, a timeout of something that
// would have gone on if it could), the one most of them reach becomes the
// suspect: a shallower service only passed their failure on.
//
// Constants: none (a half).
// Test: TestRules/breaker_vote_descend (TestAnalyzeBreakerDescendsPastBareTimeouts).
const ruleVoteDescend = "breaker_vote_descend"

func voteDescend(v *tally) {
	best := v.best
	for done := []string{best}; best != ""; {
		next := ""
		decided := v.total - blindAt(v.walks, best)
		for _, s := range v.order {
			if n := reach(v.walks, s, best); !slices.Contains(done, s) && n > 0 && 2*n >= decided &&
				(next == "" || n > reach(v.walks, next, best)) {
				next = s
			}
		}
		if next == "" {
			break
		}
		best = next
		done = append(done, best)
	}
	if best != v.best {
		v.best, v.by = best, ruleVoteDescend
	}
}
