package correlate

import "context"

// ruleBreakerGuard follows the dependency a breaker's own lines name.
//
// Condition: the breaker names nothing, no tripping trace settled a
// suspect (breaker_weigh, breaker_lookback_far), and the dependency's own
// fast failures in its lookbacks name a dependency of theirs ("circuit
// 'identityProvider' opened", a named bulkhead full; counted by
// hit_filter_fast_failure). The one named most often (ties by name) is
// the suspect, and is followed as if the breaker had named it.
//
// Constants: none.
// Test: TestRules/breaker_guard (TestAnalyzeBlindBreakerNamedByItsOwnLines).
const ruleBreakerGuard = "breaker_guard"

func followGuard(_ context.Context, _ WindowStore, s *tripSearch) error {
	lead := s.lead
	if s.trip.suspect != "" || lead.named || len(lead.guards) == 0 {
		return nil
	}
	g := ""
	for n, c := range lead.guards {
		if g == "" || c > lead.guards[g] || c == lead.guards[g] && n < g {
			g = n
		}
	}
	s.trip = trip{suspect: g, votes: lead.guards[g], guard: true, rules: []string{ruleBreakerGuard},
		next: &breakerLead{dep: g, at: lead.at, named: true, by: lead.dep}}
	return nil
}
