package sqlite

import (
	"fmt"
	"math"
	"time"

	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store/backend"
)

// zeroTime is the ts stored for a record with a zero Time.
const zeroTime = math.MinInt64

// timeToNanos encodes t; times outside what int64 nanoseconds can hold
// (before 1678 or after 2262) are refused.
func timeToNanos(t time.Time) (int64, error) {
	if t.IsZero() {
		return zeroTime, nil
	}
	if t.Before(time.Unix(0, math.MinInt64+1)) || t.After(time.Unix(0, math.MaxInt64)) {
		return 0, fmt.Errorf("%w: time %s is out of range", backend.ErrBadRecord, t.Format(time.RFC3339))
	}
	return t.UnixNano(), nil
}

// clampNanos encodes a query bound: like timeToNanos, but a time beyond
// what can be stored becomes the nearest storable bound.
func clampNanos(t time.Time) int64 {
	switch {
	case t.IsZero():
		return zeroTime
	case t.Before(time.Unix(0, math.MinInt64+1)):
		return math.MinInt64 + 1
	case t.After(time.Unix(0, math.MaxInt64)):
		return math.MaxInt64
	}
	return t.UnixNano()
}

func nanosToTime(ns int64) time.Time {
	if ns == zeroTime {
		return time.Time{}
	}
	return time.Unix(0, ns).UTC()
}

// traceKey is the value of the trace column: nil when empty, 16 bytes when
// canonical, else the text as given.
func traceKey(id schema.TraceID) any {
	switch {
	case id == "":
		return nil
	case isLowerHex(string(id), 32):
		b := id.Bytes16()
		return b[:]
	default:
		return string(id)
	}
}

func isLowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// alertFlag is what WindowQuery.ErrorsOnly selects: an error, or a
// severity of WARN or above.
func alertFlag(r *schema.Record) int64 {
	if r.IsAlert() {
		return 1
	}
	return 0
}
