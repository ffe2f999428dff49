package correlate

import "context"

// ruleTripBlindDependency leaves out walks that end at the dependency's
// own symptom naming no callee.
//
// Condition: the walk ended at the dependency on a symptom that points at
// a callee it does not name (a timeout of something, its own breaker
// refusing; see namesNoCallee): it says no more than the breaker did.
//
// Constants: none.
// Test: TestRules/trip_filter_blind_dependency (TestAnalyzeBlindBreakerLooksFurtherBack).
const ruleTripBlindDependency = "trip_filter_blind_dependency"

func skipBlindDependency(_ context.Context, _ WindowStore, w *tripWalk) (bool, error) {
	return sameService(w.res.Suspect.Service, w.lead.dep) && namesNoCallee(w.res.Suspect.Kind), nil
}
