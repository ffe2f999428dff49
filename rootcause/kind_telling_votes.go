package rootcause

import "github.com/faultline/faultline/schema"

// ruleTellingVotes: the failing traces that name a mechanism choose the
// kind their votes give, not those that name none. An error nothing
// recognises (unknown) or a bare 5xx (transient) says only that something
// failed; when hundreds of such votes outnumber the timeouts and open
// breakers of the same dependency, the plurality of votes would make the
// dependency "unknown", and its runbook one for nothing in particular.
//
// Condition: the kind comes from the votes, some of them name a kind that
// is not vague (schema.Kind.Vague); the vague ones are left out before the
// plurality is taken (so tripKinds and pointedKind then read the
// symptoms). With only vague votes, nothing changes (slow_transient may
// still read them). No constant.
// Scenario: testdata/telling_votes.txtar.
const ruleTellingVotes = "telling_votes"

// tellingVotes returns the vote kinds without the vague ones, when any
// other remains; else kinds itself.
func tellingVotes(kinds map[schema.Kind]int) map[schema.Kind]int {
	out := map[schema.Kind]int{}
	for k, n := range kinds {
		if !k.Vague() && n > 0 {
			out[k] = n
		}
	}
	if len(out) == 0 || len(out) == len(kinds) {
		return kinds
	}
	return out
}
