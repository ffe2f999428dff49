package correlate

// ruleVoteNamedMajority keeps a named dependency unless most traces point
// elsewhere.
//
// Condition: the breaker named its dependency (lead.named) and the
// service the most walks reach (before descending) is reached by no more
// than half of them: the vote settles nothing and the dependency stays the
// suspect.
//
// Constants: none (a majority).
// Test: TestRules/breaker_vote_named_majority (storeSplitVote).
const ruleVoteNamedMajority = "breaker_vote_named_majority"

func voteNamedMajority(v *tally) {
	if v.best != "" && v.named && 2*reach(v.walks, v.root, "") <= v.total {
		v.best = ""
	}
}
