package correlate

import "fmt"

// ruleBreakerNextDown goes on where the walks through a breaker went.
//
// Condition: a breaker behind a breaker (depth > 0) whose own tripping
// traces settle nothing, when walks of the hop before went through its
// service on to a deeper one (trip.deeper): the one most of them went on
// to becomes the suspect.
//
// Constants: none.
// Test: TestRules/breaker_next_down (TestAnalyzeBreakerCountsWalksThroughASuspect).
const ruleBreakerNextDown = "breaker_next_down"

func goOnNextDown(res *Result, h *hop) {
	d := h.prev.deeper
	if h.tr.suspect != "" || d == "" || h.depth == 0 {
		return
	}
	res.Suspect.Reason += fmt.Sprintf("; no other trace tells what tripped the breaker on %s, but %d of those that went through it went on to %s",
		h.lead.dep, h.prev.deeperVotes, d) + ruleTag(ruleBreakerNextDown)
	res.Suspect.Service = d
}
