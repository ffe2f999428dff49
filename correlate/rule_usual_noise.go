package correlate

import (
	"context"
	"fmt"
	"slices"

	"github.com/faultline/faultline/schema"
)

// ruleUsualNoise passes over noise a service always makes.
//
// Condition: the suspect failed on its own (no failing dependency) with an
// error of a kind that need not fail a request (unknown, deterministic,
// auth, not found; see isWeak) or with a throttle that names no callee
// (its own writes throttled, retried), and usualError says its service logged
// that signature in the breakerLookback before (the end of the
// tripQuantum of the error) as often as in the usualBefore (an hour)
// before that, and steadily since the oldest part of what the store
// holds. The trace is walked again with that error treated
// as incidental, up to usualRounds times.
//
// Constants: usualRounds, breakerLookback, usualBefore, tripQuantum.
// Test: TestRules/usual_noise (TestAnalyzeSkipsUsualNoise, TestAnalyzeSkipsUsualThrottleNoise).
const ruleUsualNoise = "usual_noise"

// usualRounds caps the errors found to be noise for one trace.
const usualRounds = 3

func passOverUsualNoise(ctx context.Context, st WindowStore, a *storeAnalysis) {
	var err error
	if a.res, err = skipUsual(ctx, st, a.memo, a.recs, a.res, a.opts); err != nil {
		a.res.Warnings = append(a.res.Warnings, fmt.Sprintf("cannot read how often %s logged its error before: %v",
			a.res.Suspect.Service, err))
	}
}

// skipUsual re-walks a trace whose suspect failed on its own with an
// error that need not fail a request (unknown, deterministic, auth, not
// found) and that its service logged as often in the hour before: noise
// it always makes (a locale it cannot resolve, an audit sink refusing),
// not what failed this trace. The walk then treats that error as
// incidental and settles elsewhere, when anything else failed.
func skipUsual(ctx context.Context, st WindowStore, memo *storeMemo, recs []schema.Record, res *Result, opts Options) (*Result, error) {
	seen := map[schema.Signature]bool{}
	for range usualRounds {
		s := res.Suspect
		if s == nil || res.ownSig == "" || !isWeak(s.Kind) && s.Kind != schema.KindRateLimit || seen[res.ownSig] {
			return res, nil
		}
		seen[res.ownSig] = true
		at, sig := quantumEnd(res.ownAt), res.ownSig
		usual, err := memoized(memo, memoKey(ruleUsualNoise, s.Service, sig, at), func() (bool, error) {
			return usualError(ctx, st, s.Service, sig, at, map[schema.Signature]bool{})
		})
		if err != nil || !usual {
			return res, err
		}
		opts.usual = append(slices.Clip(opts.usual), res.ownSig)
		again := AnalyzeRecords(recs, opts)
		if again.Suspect == nil {
			return res, nil
		}
		again.Suspect.Reason += fmt.Sprintf("; %s logs %q as often as in the hour before, so that error is not what failed this trace",
			s.Service, oneLine(messageOf(&recs[res.ownRec]), 80)) + ruleTag(ruleUsualNoise)
		res = again
	}
	return res, nil
}
