package correlate

// ruleHitFastFailure leaves out fast failures, and notes the dependency's.
//
// Condition: the record is a fast failure (an open breaker, a full
// bulkhead; see isFastFailure): it made no call and tripped nothing. When
// it is the dependency's own, its trace is one where the dependency
// refused (causeScan.fast: hit_filter_own_refusals drops the trace's bare
// errors, breaker_lookback_callers its callers' calls), and, for a breaker
// that names nothing, in a lookback of the dependency's own records, the
// dependency it names is counted in lead.guards for breaker_guard.
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
		if n := externalName(c.hint); !s.lead.named && s.q.Service != "" && n != "" && !sameService(n, dep) {
			if s.lead.guards == nil {
				s.lead.guards = map[string]int{}
			}
			s.lead.guards[n]++
		}
	}
	return true
}
