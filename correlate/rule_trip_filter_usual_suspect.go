package correlate

import (
	"context"

	"github.com/faultline/faultline/schema"
)

// ruleTripUsualSuspect leaves out walks that end at usual noise.
//
// Condition: the walk settled on a service's own error of a kind that
// need not fail a request (isWeak: a rejected token, a locale it cannot
// resolve; transient: a race or a blip it retries through; or a throttle
// of its own writes that it retries, as usual_noise passes over) that its
// service logged in the breakerLookback as often as in the usualBefore
// before, and steadily since (usualError): the noise beside what tripped
// the breaker, not its cause.
//
// Constants: breakerLookback, usualBefore.
// Test: TestRules/trip_filter_usual_suspect (TestAnalyzeBreakerIgnoresUsualErrorsAWalkEndsAt;
// a transient one: TestAnalyzeKeyedBreakerIgnoresUsualTransient; a throttle:
// TestAnalyzeKeyedBreakerFollowsReportedFailuresPastTheKeysNoise).
const ruleTripUsualSuspect = "trip_filter_usual_suspect"

func skipUsualSuspect(ctx context.Context, st WindowStore, w *tripWalk) (bool, error) {
	if k := w.res.Suspect.Kind; !isWeak(k) && k != schema.KindTransient && k != schema.KindRateLimit || w.res.ownSig == "" {
		return false, nil
	}
	return usualError(ctx, st, w.res.Suspect.Service, w.res.ownSig, w.lead.at, w.usual)
}
