package correlate

import "context"

// ruleLookbackReported reads the failures a keyed breaker's service was
// told of, when no trace names the key.
//
// Condition: the breaker names no dependency but a key (see
// breaker_lookback_key), and no trace of the breakerLookbackFar before its
// refusal names the key: the work of the key does not say whose it is (a
// holder failing a job reports "POST /jobs/7/fail", and only the service
// that keeps the breaker knows the job's namespace). Such a breaker
// counts the failures reported to it, so the tripping traces are those
// its service served (a line of it in the trace that is no error) that
// failed elsewhere (the first failure is another service's), other than
// those it refused in, each walked from its first failure. They are the
// reports of every key, not only this one: what failed the work of all of
// them is the best evidence of what failed this key's.
//
// Constants: breakerLookbackFar, keyScanCap (one read with
// breaker_lookback_key's).
// Test: TestRules/breaker_lookback_reported (TestAnalyzeKeyedBreakerFollowsReportedFailures).
const ruleLookbackReported = "breaker_lookback_reported"

func lookbackReported(ctx context.Context, st WindowStore, s *tripSearch) error {
	ks, err := keyStretch(ctx, st, s)
	if ks == nil || err != nil {
		return err
	}
	if len(ks.hits(s, func(l keyTrace) bool { return l.named }, ruleLookbackKey)) > 0 {
		return nil
	}
	if hits := ks.hits(s, func(l keyTrace) bool { return l.served && !l.ownFailure }, ruleLookbackReported); len(hits) > 0 {
		s.hits = hits
	}
	return nil
}
