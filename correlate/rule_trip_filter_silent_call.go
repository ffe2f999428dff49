package correlate

import (
	"context"

	"github.com/faultline/faultline/schema"
)

// ruleTripSilentCall leaves out a caller's failed call that shows nothing
// of the dependency.
//
// Condition: the walk started at a caller's failed call to the
// dependency (it timed out, got a 5xx) and ended at the dependency with no
// error of its own in the trace (no ownSig): no news. A 429 or a refused
// connection is the dependency's own doing and counts.
//
// Constants: none.
// Test: TestRules/trip_filter_silent_call (storeSilentCall).
const ruleTripSilentCall = "trip_filter_silent_call"

func skipSilentCall(_ context.Context, _ WindowStore, w *tripWalk) (bool, error) {
	s, dep := w.res.Suspect, w.lead.dep
	return !sameService(w.hit.from, dep) && sameService(s.Service, dep) && w.res.ownSig == "" &&
		s.Kind != schema.KindRateLimit && s.Kind != schema.KindConnectionRefused, nil
}
