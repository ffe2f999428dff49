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
// (resource-gc, oom) in the troubleLookback before its call failed (the
// end of the call's tripQuantum), at a
// higher rate than in the troubleEarlier before that (see lineRise): a
// paused or dying process times out and drops its own calls, and its
// dependency may be fine. The suspect becomes the caller, of the kind it
// logged most.
//
// Constants: troubleLookback, troubleEarlier, troubleMin, tripQuantum.
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
	t, err := memoized(a.memo, memoKey(ruleTroubledCaller, c.svc, quantumEnd(c.at)), func() (trouble, error) {
		return troubleBefore(ctx, st, a.memo, c.svc, quantumEnd(c.at))
	})
	if err != nil {
		res.Warnings = append(res.Warnings, fmt.Sprintf("cannot read the warnings of %s: %v", c.svc, err))
		return
	}
	rise, counts, samples := t.rise, t.counts, t.samples
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

// trouble is what troubleBefore read: how the lines of GC pauses and
// running out of memory rose, and of each kind, how many came in the
// recent stretch and the first one's message.
type trouble struct {
	rise    rise
	counts  map[schema.Kind]int
	samples map[schema.Kind]string
}

// troubleBefore counts svc's lines of trouble in the troubleLookback
// before at and in the troubleEarlier before that, classifying each line
// once per memo.
func troubleBefore(ctx context.Context, st WindowStore, memo *storeMemo, svc string, at time.Time) (trouble, error) {
	t := trouble{counts: map[schema.Kind]int{}, samples: map[schema.Kind]string{}}
	troubledKind := func(r *schema.Record, k schema.Kind) bool {
		if k != schema.KindResourceGC && k != schema.KindOOM {
			return false
		}
		if !r.Time.Before(at.Add(-troubleLookback)) { // the recent stretch
			t.counts[k]++
			if t.samples[k] == "" {
				t.samples[k] = messageOf(r)
			}
		}
		return true
	}
	if er := heldErrors(st); er != nil {
		// The stretches an analysis reads again and again (an hour
		// before each quantum of every failing call) are classified once.
		rs, ok, err := heldRise(ctx, er, svc, at, troubleLookback, troubleEarlier, troubledKind)
		if err != nil || ok {
			t.rise = rs
			return t, err
		}
	}
	troubled := func(r *schema.Record) bool {
		if r.Type != schema.TypeLog {
			return false
		}
		return troubledKind(r, memo.classify(r))
	}
	var err error
	t.rise, err = lineRise(ctx, st, svc, at, troubleLookback, troubleEarlier, troubled)
	return t, err
}

// heldRise is lineRise over what er holds, with each log line's kind
// classified once (errorsRead.heldKinds); ok is false, having matched
// nothing, when er does not hold both stretches.
func heldRise(ctx context.Context, er *errorsRead, svc string, at time.Time, recent, earlier time.Duration,
	match func(*schema.Record, schema.Kind) bool) (rise, bool, error) {
	type stretch struct {
		recs  []heldRec
		kinds []schema.Kind
	}
	var st [2]stretch
	for i, w := range [2][2]time.Time{{at.Add(-recent), at}, {at.Add(-recent - earlier), at.Add(-recent)}} {
		recs, kinds, ok, err := er.heldKinds(ctx, svc, w[0], w[1], riseScan)
		if err != nil || !ok {
			return rise{}, false, err
		}
		st[i] = stretch{recs, kinds}
	}
	count := func(s stretch, from, to time.Time) (int, time.Duration) {
		n := 0
		var r schema.Record
		for i := range s.recs {
			if s.recs[i].recType() != schema.TypeLog {
				continue
			}
			if r = s.recs[i].record(); match(&r, s.kinds[i]) {
				n++
			}
		}
		// As countLines: the lines read are in time order.
		switch read := len(s.recs); {
		case read == 0:
			return 0, to.Sub(from)
		case read >= riseScan:
			return n, s.recs[read-1].at().Sub(s.recs[0].at())
		}
		return n, to.Sub(s.recs[0].at())
	}
	out := rise{recentLen: recent}
	out.recent, _ = count(st[0], at.Add(-recent), at)
	out.earlier, out.earlierLen = count(st[1], at.Add(-recent-earlier), at.Add(-recent))
	return out, true, nil
}

// heldErrors is the errorsRead that st's window reads go through (the
// store rules' reads: a tracesRead over it), nil when none.
func heldErrors(st WindowStore) *errorsRead {
	switch s := st.(type) {
	case *errorsRead:
		return s
	case *tracesRead:
		return heldErrors(s.WindowStore)
	}
	return nil
}
