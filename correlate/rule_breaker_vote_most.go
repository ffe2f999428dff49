package correlate

// ruleVoteMost settles on the service most tripping traces reach.
//
// Condition: some walk was kept. The suspect is the service the most
// walks end at or go through (the first named, on a tie): a trace whose
// walk went through a suspect of others on to a deeper one backs it too.
//
// Constants: none.
// Test: TestRules/breaker_vote_most (TestAnalyzeFollowsOpenBreakerToTrippingTraces).
const ruleVoteMost = "breaker_vote_most"

func voteMost(v *tally) {
	best := ""
	for _, s := range v.order {
		if best == "" || reach(v.walks, s, "") > reach(v.walks, best, "") {
			best = s
		}
	}
	v.best = best
	if best != "" {
		v.by = ruleVoteMost
	}
}
