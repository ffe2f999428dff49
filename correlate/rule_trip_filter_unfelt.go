package correlate

import "context"

// ruleTripUnfelt leaves out errors of the dependency that no caller felt.
//
// Condition: the walk started at the dependency's own failure, ended at
// the dependency, and nothing else in the trace failed (no cascade): an
// error it logs while still answering does not trip its callers'
// breakers.
//
// Constants: none.
// Test: TestRules/trip_filter_unfelt (TestAnalyzeBreakerIgnoresErrorsNoCallerFelt).
const ruleTripUnfelt = "trip_filter_unfelt"

func skipUnfelt(_ context.Context, _ WindowStore, w *tripWalk) (bool, error) {
	return ownEnd(w) && len(w.res.Cascade) == 0, nil
}

// ownEnd reports whether w started at the dependency's own failure and
// ended at the dependency, in a failed trace.
func ownEnd(w *tripWalk) bool {
	dep := w.lead.dep
	return sameService(w.hit.from, dep) && sameService(w.res.Suspect.Service, dep) && w.res.Origin != nil
}
