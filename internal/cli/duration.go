package cli

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// MaxDuration is the longest duration ParseDuration accepts: 3650 days
// (ten years). Longer windows are never meant, and beyond about 292 years a
// time.Duration overflows.
const MaxDuration = 3650 * 24 * time.Hour

// Errors of ParseDuration.
var (
	ErrDurationSyntax  = errors.New("not a duration")
	ErrDurationTooLong = errors.New("duration too long")
)

// durationUnits are the units ParseDuration knows, longest suffix first
// where two share a prefix.
var durationUnits = []struct {
	name string
	unit time.Duration
}{
	{"ns", time.Nanosecond}, {"us", time.Microsecond}, {"µs", time.Microsecond}, {"μs", time.Microsecond},
	{"ms", time.Millisecond}, {"s", time.Second}, {"m", time.Minute}, {"h", time.Hour}, {"d", 24 * time.Hour},
}

// ParseDuration reads a positive duration as time.ParseDuration does
// ("90s", "1h30m", "1.5h"), plus days ("2d", "1d12h"), with overflow
// checks: anything over max (MaxDuration when max <= 0) is
// ErrDurationTooLong, never a wrapped-around value; a malformed, zero or
// negative one is ErrDurationSyntax.
func ParseDuration(s string, max time.Duration) (time.Duration, error) {
	if max <= 0 || max > MaxDuration {
		max = MaxDuration
	}
	rest := s
	if rest == "" || rest == "0" {
		return 0, ErrDurationSyntax
	}
	var total time.Duration
	for rest != "" {
		i := 0
		for i < len(rest) && (rest[i] >= '0' && rest[i] <= '9' || rest[i] == '.') {
			i++
		}
		num := rest[:i]
		if num == "" || num == "." || strings.Count(num, ".") > 1 {
			return 0, ErrDurationSyntax
		}
		rest = rest[i:]
		var unit time.Duration
		for _, u := range durationUnits {
			if strings.HasPrefix(rest, u.name) && (u.name != "m" || !strings.HasPrefix(rest, "ms")) {
				unit, rest = u.unit, rest[len(u.name):]
				break
			}
		}
		if unit == 0 {
			return 0, ErrDurationSyntax
		}
		v, err := strconv.ParseFloat(num, 64)
		if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
			return 0, ErrDurationSyntax
		}
		// The float is only the range check; max is far below 2^63, so
		// what passes it converts exactly enough and cannot overflow.
		if v*float64(unit) > float64(max-total)+0.5 {
			return 0, ErrDurationTooLong
		}
		total += time.Duration(math.Round(v * float64(unit)))
	}
	switch {
	case total > max:
		return 0, ErrDurationTooLong
	case total <= 0:
		return 0, ErrDurationSyntax
	}
	return total, nil
}

// FormatDuration prints d the way people write it: 7d, 36h, 15m, 90s.
func FormatDuration(d time.Duration) string {
	day := 24 * time.Hour
	switch {
	case d >= day && d%day == 0:
		return strconv.FormatInt(int64(d/day), 10) + "d"
	case d%time.Hour == 0:
		return strconv.FormatInt(int64(d/time.Hour), 10) + "h"
	case d%time.Minute == 0:
		return strconv.FormatInt(int64(d/time.Minute), 10) + "m"
	}
	return d.String()
}

// DurationError is the one sentence that says what was wrong with a
// duration named what ("--since", "since") and what to write instead.
func DurationError(what, s string, err error, max time.Duration) string {
	if max <= 0 || max > MaxDuration {
		max = MaxDuration
	}
	if errors.Is(err, ErrDurationTooLong) {
		return fmt.Sprintf("%s %q is too long: the longest is %s", what, Truncate(s, 40), FormatDuration(max))
	}
	return fmt.Sprintf("%s %q is not a positive duration such as 15m, 2h or 2d", what, Truncate(s, 40))
}
