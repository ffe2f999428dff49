package correlate

import "context"

// ruleLookbackReported reads the failures a keyed breaker's service was
// told of, when no trace names the key.
//
// Condition: the breaker names no dependency but a key (see
// breaker_lookback_key), and no trace of the breakerLookbackFar before its
// refusal names the key, or none of those that do points anywhere once
// the trip filters have left out the key's usual failures: the work of
// the key does not say whose it is (a holder failing a job reports "POST
// /jobs/7/fail", and only the service that keeps the breaker knows the
// job's namespace). Such a breaker
// counts the failures reported to it, so the tripping traces are those
// its service served (a line of it in the trace that is no error) that
// failed elsewhere (the first failure is another service's), other than
// those it refused in, each walked from its first failure. They are the
// reports of every key, not only this one: what failed the work of all of
// them is the best evidence of what failed this key's.
//
// Constants: breakerLookbackFar, keyScanCap (one read with
// breaker_lookback_key's).
// Test: TestRules/breaker_lookback_reported (TestAnalyzeKeyedBreakerFollowsReportedFailures;
// past the key's usual failures: TestAnalyzeKeyedBreakerFollowsReportedFailuresPastTheKeysNoise).
const ruleLookbackReported = "breaker_lookback_reported"

func lookbackReported(ctx context.Context, st WindowStore, s *tripSearch) error {
	ks, err := keyStretch(ctx, st, s)
	if ks == nil || err != nil {
		return err
	}
	if named := ks.hits(s, func(l keyTrace) bool { return l.named }, ruleLookbackKey); len(named) > 0 {
		// The traces that name the key speak first; when the trip
		// filters leave none of them a suspect (the key's usual
		// failures, its refusals), they say nothing of what tripped it.
		if t := weigh(ctx, st, s, latestHits(named)); t.err != nil || t.suspect != "" {
			return t.err
		}
	}
	if hits := ks.hits(s, func(l keyTrace) bool { return l.served && !l.ownFailure }, ruleLookbackReported); len(hits) > 0 {
		s.hits = hits
	}
	return nil
}
