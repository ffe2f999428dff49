package correlate

import (
	"context"
	"time"

	"github.com/faultline/faultline/schema"
)

// riseScan caps the warnings and errors read for each stretch of lineRise.
const riseScan = 2000

// rise compares how often a service logged some warnings or errors just
// before a moment with how often it did in a longer stretch before that.
type rise struct {
	recent, earlier int           // lines counted in each stretch
	recentLen       time.Duration // the recent stretch
	earlierLen      time.Duration // the part of the earlier one the store holds
}

// perMinute is the earlier stretch's rate when recent is false.
func (r rise) perMinute(recent bool) float64 {
	if recent {
		return float64(r.recent) / max(r.recentLen.Minutes(), 1.0/60)
	}
	return float64(r.earlier) / max(r.earlierLen.Minutes(), 1)
}

// riseFactor is how many times as often lines must come in the recent
// stretch as before it to have risen.
const riseFactor = 3

// rose reports whether the lines came at least riseFactor times as often
// in the recent stretch as before it.
func (r rise) rose() bool { return risen(r.perMinute(true), r.perMinute(false)) }

// risen reports whether a rate per minute is at least riseFactor times an
// earlier one.
func risen(recent, earlier float64) bool { return recent >= riseFactor*earlier }

// Risen is risen for the incident analysis (rootcause), so that a rise
// means one thing in both.
func Risen(recent, earlier float64) bool { return risen(recent, earlier) }

// lineRise counts svc's warnings and errors that match in the recent
// stretch before at and in the earlier one before that. The earlier rate
// is over the stretch its lines cover: from the first line read (a store
// may hold nothing earlier), to its end or to the last line when riseScan
// cut the read short.
func lineRise(ctx context.Context, st WindowStore, svc string, at time.Time, recent, earlier time.Duration,
	match func(*schema.Record) bool) (rise, error) {
	out := rise{recentLen: recent}
	var err error
	if out.recent, _, err = countLines(ctx, st, svc, at.Add(-recent), at, match); err != nil {
		return out, err
	}
	out.earlier, out.earlierLen, err = countLines(ctx, st, svc, at.Add(-recent-earlier), at.Add(-recent), match)
	return out, err
}

// countLines counts svc's warnings and errors in [from, to) that match,
// and how much of the stretch the lines read cover.
func countLines(ctx context.Context, st WindowStore, svc string, from, to time.Time,
	match func(*schema.Record) bool) (int, time.Duration, error) {
	q := schema.WindowQuery{From: from, To: to, Service: svc, ErrorsOnly: true, Limit: riseScan}
	n, read := 0, 0
	var first, last time.Time
	// One record the matcher is handed a pointer to: a pointer to the
	// loop's own would move each record to the heap.
	cur := new(schema.Record)
	for r, err := range st.WindowRecords(ctx, q) {
		if err != nil {
			return 0, 0, err
		}
		if read == 0 || r.Time.Before(first) {
			first = r.Time
		}
		if read == 0 || r.Time.After(last) {
			last = r.Time
		}
		read++
		*cur = r
		if match(cur) {
			n++
		}
	}
	switch {
	case read == 0:
		return 0, to.Sub(from), nil
	case read >= riseScan:
		return n, last.Sub(first), nil
	}
	return n, to.Sub(first), nil
}
