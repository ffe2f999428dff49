package correlate

import (
	"context"

	"github.com/faultline/faultline/schema"
)

// ruleTripRefusalEcho leaves out walks that end at what a breaker's own
// refusals left behind.
//
// Condition: the breaker names nothing, the walk ended at its service in
// a failure that sums up failed attempts (a message moved to its
// dead-letter queue, retries given up; see sumsUpAttempts), and the
// service's breaker refused in the same trace no later than that failure
// (a fast failure of its own among the trace's failures). The attempts it
// sums up were the refusals: the walk says nothing of what tripped the
// breaker.
//
// Constants: none.
// Test: TestRules/trip_filter_refusal_echo (TestAnalyzeBlindBreakerSkipsTheDeadLettersOfItsRefusals).
const ruleTripRefusalEcho = "trip_filter_refusal_echo"

func skipRefusalEcho(_ context.Context, _ WindowStore, w *tripWalk) (bool, error) {
	dep, s := w.lead.dep, w.res.Suspect
	if w.lead.named || !sameService(s.Service, dep) || !sumsUpAttempts(s.Kind) {
		return false, nil
	}
	for _, f := range w.res.Failures {
		if f.Error && isFastFailure(f.Class) && sameService(f.Service, dep) &&
			(w.res.ownAt.IsZero() || !f.Time.After(w.res.ownAt)) {
			return true, nil
		}
	}
	return false, nil
}

// sumsUpAttempts reports whether a failure of kind k is the end of
// attempts that failed before it, rather than a failure of its own.
func sumsUpAttempts(k schema.Kind) bool {
	return k == schema.KindPoisonMessage || k == schema.KindRetryExhausted
}
