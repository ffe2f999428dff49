package correlate

// ruleHitFastFailure leaves out fast failures, and notes the dependency's.
//
// Condition: the record is a fast failure (an open breaker, a full
// bulkhead; see isFastFailure): it made no call and tripped nothing. When
// it is the dependency's own, its trace is one where the dependency
// refused (causeScan.fast: hit_filter_own_refusals drops the trace's bare
// errors, breaker_lookback_callers its callers' calls).
//
// Constants: none.
// Test: TestRules/hit_filter_fast_failure (TestAnalyzeBlindBreakerSkipsItsOwnRefusals).
const ruleHitFastFailure = "hit_filter_fast_failure"

func skipFastFailure(c *hitCandidate, s *causeScan) bool {
	if !isFastFailure(c.kind) {
		return false
	}
	if dep := s.lead.dep; sameService(c.svc, dep) {
		s.fast[c.rec.TraceID] = true
	}
	return true
}
