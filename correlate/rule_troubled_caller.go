package correlate

import (
	"context"
	"fmt"
	"time"

	"github.com/faultline/faultline/schema"
)

// Limits of looking at a caller's own trouble.
const (
	// troubleLookback is how long before its failed call a caller's own
	// trouble is looked for; troubleEarlier is the stretch before that it
	// is compared with (long, since the trouble may have begun minutes
	// before this call).
	troubleLookback = 2 * time.Minute
	troubleEarlier  = time.Hour
	// troubleMin is how many lines of trouble make a caller troubled.
	troubleMin = 3
)

// ruleTroubledCaller blames a troubled caller instead of its silent
// dependency.
//
// Condition: the suspect is a dependency silent in the trace, named by a
// failed call of another service (Result.caller), and that caller logged
// at least troubleMin lines of GC pauses or running out of memory
// (resource-gc, oom) in the troubleLookback before its call failed, at a
// higher rate than in the troubleEarlier before that (see lineRise): a
// paused or dying process times out and drops its own calls, and its
// dependency may be fine. The suspect becomes the caller, of the kind it
// logged most.
//
// Constants: troubleLookback, troubleEarlier, troubleMin.
// Test: TestRules/troubled_caller (TestBlameTroubledCaller).
const ruleTroubledCaller = "troubled_caller"

// Troubled is the condition of troubled_caller on counts already made: a
// service is troubled when it logged at least troubleMin lines of GC
// pauses or running out of memory in the recent stretch, at least
// riseFactor times as often per minute as in the earlier one. The incident
// analysis (rootcause), which compares a window with its baseline rather
// than reading the store around one trace, applies the same condition
// through this function, so that the rule and its constants live here
// only.
func Troubled(recent int, recentMinutes float64, earlier int, earlierMinutes float64) bool {
	if recent < troubleMin {
		return false
	}
	return earlier == 0 || risen(float64(recent)/recentMinutes, float64(earlier)/earlierMinutes)
}

func blameTroubledCaller(ctx context.Context, st WindowStore, a *storeAnalysis) {
	res := a.res
	if res.caller == nil || res.Suspect == nil {
		return
	}
	c := res.caller
	if c.svc == "" || c.svc == res.Suspect.Service {
		return
	}
	at := c.at.Add(time.Nanosecond) // the failed call's own records count
	counts := map[schema.Kind]int{}
	samples := map[schema.Kind]string{}
	troubled := func(r *schema.Record) bool {
		if r.Type != schema.TypeLog {
			return false
		}
		k := Classify(r)
		if k != schema.KindResourceGC && k != schema.KindOOM {
			return false
		}
		if !r.Time.Before(at.Add(-troubleLookback)) { // the recent stretch
			counts[k]++
			if samples[k] == "" {
				samples[k] = messageOf(r)
			}
		}
		return true
	}
	rise, err := lineRise(ctx, st, c.svc, at, troubleLookback, troubleEarlier, troubled)
	if err != nil {
		res.Warnings = append(res.Warnings, fmt.Sprintf("cannot read the warnings of %s: %v", c.svc, err))
		return
	}
	if rise.recent < troubleMin || !rise.rose() {
		return // untroubled, or as troubled as usual: not what changed
	}
	kind := schema.KindResourceGC
	if counts[schema.KindOOM] > counts[kind] {
		kind = schema.KindOOM
	}
	res.Suspect.Reason += fmt.Sprintf("; but %s itself logged %d %s lines in the %s before its call failed (e.g. %q), "+
		"%.1f a minute before that: a pausing or dying process fails its own calls",
		c.svc, rise.recent, kind, troubleLookback, oneLine(samples[kind], 100), rise.perMinute(false)) + ruleTag(ruleTroubledCaller)
	res.Suspect.Service, res.Suspect.Kind = c.svc, kind
}
