package correlate

import "context"

// ruleTripOwnService leaves out walks back to the breaker's own service.
//
// Condition: the breaker named its dependency (lead.by is the service
// whose breaker refused) and the walk ended at that service (its signal
// the only one before a silent failure further down): that says nothing
// of what tripped the breaker.
//
// Constants: none.
// Test: TestRules/trip_filter_own_service (TestAnalyzeBreakerIgnoresWalksBackToItsOwnService).
const ruleTripOwnService = "trip_filter_own_service"

func skipOwnService(_ context.Context, _ WindowStore, w *tripWalk) (bool, error) {
	return w.lead.by != "" && sameService(w.res.Suspect.Service, w.lead.by), nil
}
