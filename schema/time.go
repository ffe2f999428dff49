package schema

import "time"

// The times a record may carry: what every store backend can hold. The
// embedded store keeps int64 Unix nanoseconds (1677..2262), ClickHouse
// DateTime64(9) next to the OpenTelemetry Collector's DateTime and Date
// columns (1970..2106); the range is their intersection, so a record
// accepted at ingest is storable by either. The Unix epoch itself is left
// out: it is what an unset timestamp reads as. Ingest rejects a record
// outside the range as bad_timestamp; a store may refuse one.
const (
	// MinTimeUnixNano is the earliest time a record may carry: one
	// nanosecond after 1970-01-01T00:00:00Z.
	MinTimeUnixNano int64 = 1
	// MaxTimeUnixNano is the first time past the range: 2106-01-01T00:00:00Z.
	MaxTimeUnixNano int64 = 4291747200 * int64(time.Second)
)

// TimeInRange reports whether t lies in [MinTimeUnixNano, MaxTimeUnixNano):
// a time every store can hold. The zero Time is outside.
func TimeInRange(t time.Time) bool {
	s := t.Unix() // compared in seconds first: UnixNano overflows past 2262
	switch {
	case s < 0 || s >= MaxTimeUnixNano/int64(time.Second):
		return false
	case s == 0:
		return int64(t.Nanosecond()) >= MinTimeUnixNano
	}
	return true
}

// UnixNanoInRange is TimeInRange for an unsigned count of Unix nanoseconds
// (OTLP's timeUnixNano), before it is converted and could wrap.
func UnixNanoInRange(ns uint64) bool {
	return ns >= uint64(MinTimeUnixNano) && ns < uint64(MaxTimeUnixNano)
}
