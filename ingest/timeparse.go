package ingest

import (
	"strconv"
	"strings"
	"time"
)

// timeLayouts are the textual timestamp layouts tried in order after
// RFC 3339. Layouts without a zone are read as UTC.
func timeLayouts() []string {
	return []string{
		"2006-01-02 15:04:05.999999999",
		"2006-01-02 15:04:05,999999999",
		"2006-01-02T15:04:05.999999999Z0700",
		"2006-01-02 15:04:05.999999999Z07:00",
		"2006-01-02 15:04:05.999999999Z0700",
		"2006-01-02 15:04:05.999999999 -0700",
		"2006-01-02T15:04:05.999999999",
		"2006-01-02T15:04:05,999999999",
		"2006/01/02 15:04:05.999999999",
		time.RFC1123Z, time.RFC1123, time.RFC822Z,
		"02/Jan/2006:15:04:05 -0700",
	}
}

// parseTime reads a timestamp written as RFC 3339 or another common layout,
// or as a unix time in seconds, milliseconds, microseconds or nanoseconds
// (told apart by magnitude), as a number or a numeric string; fractional
// seconds are allowed. It reports false for anything else.
func parseTime(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, false
	}
	if c := s[0]; c >= '0' && c <= '9' && !strings.ContainsAny(s, "-/: ") {
		return unixTime(s)
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, true
	}
	for _, l := range timeLayouts() {
		if t, err := time.Parse(l, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// unixTime reads a unix timestamp whose unit is told by its magnitude:
// below 1e11 seconds, below 1e14 milliseconds, below 1e17 microseconds,
// else nanoseconds.
func unixTime(s string) (time.Time, bool) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		switch {
		case n <= 0:
			return time.Time{}, false
		case n < 1e11:
			return time.Unix(n, 0).UTC(), true
		case n < 1e14:
			return time.UnixMilli(n).UTC(), true
		case n < 1e17:
			return time.UnixMicro(n).UTC(), true
		default:
			return time.Unix(0, n).UTC(), true
		}
	}
	whole, frac, ok := strings.Cut(s, ".")
	if !ok || frac == "" || !isDigits(whole) || !isDigits(frac) || len(whole) > 19 {
		return time.Time{}, false
	}
	n, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || n <= 0 {
		return time.Time{}, false
	}
	unit := int64(1) // nanoseconds per unit of whole
	switch {
	case n < 1e11:
		unit = 1e9
	case n < 1e14:
		unit = 1e6
	case n < 1e17:
		unit = 1e3
	}
	if len(frac) > 9 {
		frac = frac[:9]
	}
	f, _ := strconv.ParseInt(frac, 10, 64)
	for i := len(frac); i < 9; i++ {
		f *= 10
	}
	sec, rem := n*unit/1e9, n*unit%1e9
	if unit == 1e9 {
		sec, rem = n, 0
	}
	return time.Unix(sec, rem+f*unit/1e9).UTC(), true
}

// lineTime reads the timestamp a log line starts with. A time of day alone
// (15:04:05.000) is placed on the day of ref that brings it nearest to ref;
// with a zero ref it is not used.
func lineTime(line string, ref time.Time) (time.Time, bool) {
	if ts := leadingTime(line); ts != "" {
		t, ok := parseTime(ts)
		return t, ok
	}
	tok, _, _ := strings.Cut(line, " ")
	if ref.IsZero() || len(tok) < 8 {
		return time.Time{}, false
	}
	tod, err := time.Parse("15:04:05.999999999", strings.Replace(tok, ",", ".", 1))
	if err != nil {
		return time.Time{}, false
	}
	ref = ref.UTC()
	y, m, d := ref.Date()
	t := time.Date(y, m, d, tod.Hour(), tod.Minute(), tod.Second(), tod.Nanosecond(), time.UTC)
	switch diff := t.Sub(ref); {
	case diff > 12*time.Hour:
		t = t.AddDate(0, 0, -1)
	case diff < -12*time.Hour:
		t = t.AddDate(0, 0, 1)
	}
	return t, true
}
