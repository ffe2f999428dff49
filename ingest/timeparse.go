package ingest

import (
	"strconv"
	"strings"
	"time"

	"github.com/faultline/faultline/schema"
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
	if whole, frac, neg, ok := splitNumber(s); ok {
		return numberTime(whole, frac, neg)
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

// outOfRange is the time of a number that reads as a unix time no store
// can hold (negative, or too large for int64 nanoseconds): the first
// instant past schema.TimeInRange, so that the record is bad_timestamp
// rather than given the time of ingest.
var outOfRange = time.Unix(schema.MaxTimeUnixNano/int64(time.Second), 0).UTC()

// splitNumber reads s when it is a JSON number (-?int[.frac][e±exp], as a
// logger may write a time: 1e16, 1.796136e9) and returns its value in plain
// decimal: the digits before and after the point, without leading zeros of
// whole ("" for zero). ok is false when s is not a JSON number. A value of
// more than 20 digits before the point comes back as whole "1" followed by
// 20 zeros (too large either way).
func splitNumber(s string) (whole, frac string, neg, ok bool) {
	i := 0
	if neg = s[0] == '-'; neg {
		i++
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	intPart := s[start:i]
	if intPart == "" || (len(intPart) > 1 && intPart[0] == '0') {
		return "", "", false, false
	}
	var fracPart string
	if i < len(s) && s[i] == '.' {
		j := i + 1
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if fracPart = s[i+1 : j]; fracPart == "" {
			return "", "", false, false
		}
		i = j
	}
	exp := 0
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		e, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+"))
		if err != nil || s[i+1:] == "" || strings.HasPrefix(s[i+1:], "+-") || strings.HasPrefix(s[i+1:], "+ ") {
			return "", "", false, false
		}
		exp, i = max(min(e, 1000), -1000), len(s)
	}
	if i != len(s) {
		return "", "", false, false
	}
	digits := strings.TrimLeft(intPart+fracPart, "0")
	point := len(intPart) + exp - (len(intPart+fracPart) - len(digits)) // digits before the point
	switch {
	case digits == "":
		return "", "", neg, true
	case point > 20:
		return "1" + strings.Repeat("0", 20), "", neg, true
	case point <= 0:
		return "", strings.Repeat("0", -point) + digits, neg, true
	case point >= len(digits):
		return digits + strings.Repeat("0", point-len(digits)), "", neg, true
	}
	return digits[:point], digits[point:], neg, true
}

// numberTime is the time of a JSON number (see splitNumber): unix s, ms, µs
// or ns by magnitude, as unixTime reads it. Zero and a value below one
// cannot be read (false: the record takes the time of ingest); a negative
// value or one past int64 is outOfRange.
func numberTime(whole, frac string, neg bool) (time.Time, bool) {
	switch {
	case whole == "":
		return time.Time{}, false
	case neg:
		return outOfRange, true
	}
	if _, err := strconv.ParseInt(whole, 10, 64); err != nil {
		return outOfRange, true
	}
	if strings.Trim(frac, "0") == "" {
		return unixTime(whole)
	}
	return unixTime(whole + "." + frac)
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
