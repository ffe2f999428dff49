package correlate

// ruleHitOwnRefusals drops the bare errors of a breaker's own refusals.
//
// Condition: the breaker names nothing (it refuses at the service's own
// door), the hit is vague (a bare 5xx, an error nothing recognises, naming
// no callee), and the dependency failed fast in the same trace (noted by
// hit_filter_fast_failure in the same read): the 503 it answered is the
// refusal, and says nothing of what tripped the breaker.
//
// Constants: none.
// Test: TestRules/hit_filter_own_refusals (TestAnalyzeBlindBreakerSkipsItsOwnRefusals).
const ruleHitOwnRefusals = "hit_filter_own_refusals"

func dropOwnRefusals(h *traceHit, s *causeScan) bool {
	return !s.lead.named && h.vague && s.fast[h.id]
}
