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
	// troubleScan caps the warnings and errors read for each stretch.
	troubleScan = 400
	// troubleMin is how many lines of trouble make a caller troubled.
	troubleMin = 3
)

// blameTroubledCaller moves the suspect from a dependency silent in the
// trace to the caller whose failed call named it, when that caller was
// itself pausing for garbage collection or running out of memory in the
// minutes before, more than before that: a paused or dying process times
// out and drops its own calls, and its dependency may be fine.
func blameTroubledCaller(ctx context.Context, st WindowStore, res *Result) {
	c := res.caller
	if c.svc == "" || c.svc == res.Suspect.Service {
		return
	}
	recent, kind, sample, _, err := troubleLines(ctx, st, c.svc, c.at.Add(-troubleLookback), c.at.Add(time.Nanosecond))
	if err != nil {
		res.Warnings = append(res.Warnings, fmt.Sprintf("cannot read the recent warnings of %s: %v", c.svc, err))
		return
	}
	if recent < troubleMin {
		return
	}
	earlier, _, _, covered, err := troubleLines(ctx, st, c.svc, c.at.Add(-troubleLookback-troubleEarlier), c.at.Add(-troubleLookback))
	if err != nil {
		res.Warnings = append(res.Warnings, fmt.Sprintf("cannot read the earlier warnings of %s: %v", c.svc, err))
		return
	}
	perMin := func(n int, d time.Duration) float64 { return float64(n) / max(d.Minutes(), 1) }
	if perMin(recent, troubleLookback) < 3*perMin(earlier, covered) {
		return // as troubled as usual: not what changed
	}
	res.Suspect.Reason += fmt.Sprintf("; but %s itself logged %d %s lines in the %s before its call failed (e.g. %q), "+
		"%.1f a minute before that: a pausing or dying process fails its own calls",
		c.svc, recent, kind, troubleLookback, oneLine(sample, 100), perMin(earlier, covered))
	res.Suspect.Service, res.Suspect.Kind = c.svc, kind
}

// troubleLines counts svc's warnings and errors in [from, to) that tell of
// its own process in trouble (GC pressure, memory exhausted), with the
// kind most of them have, one of their messages, and how much of the
// stretch the lines read cover (see coverage).
func troubleLines(ctx context.Context, st WindowStore, svc string, from, to time.Time) (int, schema.Kind, string, time.Duration, error) {
	q := schema.WindowQuery{From: from, To: to, Service: svc, ErrorsOnly: true, Limit: troubleScan}
	counts := map[schema.Kind]int{}
	samples := map[schema.Kind]string{}
	n := 0
	var seen coverage
	for r, err := range st.WindowRecords(ctx, q) {
		if err != nil {
			return 0, "", "", 0, err
		}
		seen.add(r.Time)
		if r.Type != schema.TypeLog {
			continue
		}
		switch k := Classify(&r); k {
		case schema.KindResourceGC, schema.KindOOM:
			n++
			counts[k]++
			if samples[k] == "" {
				samples[k] = messageOf(&r)
			}
		}
	}
	kind := schema.KindResourceGC
	if counts[schema.KindOOM] > counts[kind] {
		kind = schema.KindOOM
	}
	return n, kind, samples[kind], seen.covered(from, to, troubleScan), nil
}
