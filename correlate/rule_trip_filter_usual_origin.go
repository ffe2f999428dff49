package correlate

import "context"

// ruleTripUsualOrigin leaves out the dependency's usual noise.
//
// Condition: the walk started at the dependency's own failure and ended
// at the dependency, the trace's origin is of a kind that need not fail a
// request (isWeak), and the dependency logged that error in the
// breakerLookback as often as in the usualBefore before, and steadily
// since (usualError): an error it logs all day did not trip the breaker
// now.
//
// Constants: breakerLookback, usualBefore.
// Test: TestRules/trip_filter_usual_origin (storeUsualOrigin; also TestAnalyzeBreakerIgnoresUsualErrors).
const ruleTripUsualOrigin = "trip_filter_usual_origin"

func skipUsualOrigin(ctx context.Context, st WindowStore, w *tripWalk) (bool, error) {
	if !ownEnd(w) || !isWeak(w.res.Origin.Class) {
		return false, nil
	}
	return usualError(ctx, st, w.lead.dep, w.res.Origin.Signature, w.lead.at, w.usual)
}
