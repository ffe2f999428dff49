package ingest

import (
	"strconv"
	"strings"

	"github.com/faultline/faultline/schema"
)

// parseLevel maps a level as loggers write it to an OpenTelemetry severity
// number: words in any case and common abbreviations (ERROR, err, E,
// warning, crit, panic, ...), numeric strings, and the numeric levels of
// bunyan/pino (10..60), logback's level_value (5000..50000) and syslog (0..7).
// It reports false for anything it does not know.
func parseLevel(s string) (schema.Severity, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	if c := s[0]; c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' { // no error value to allocate for words
		if n, err := strconv.ParseFloat(s, 64); err == nil {
			return levelNumber(n)
		}
	}
	return levelWord(lowerASCII(strings.Trim(s, "[]<>")))
}

func levelWord(w string) (schema.Severity, bool) {
	switch w {
	case "trace", "finest", "finer", "verbose", "t", "trc", "v":
		return schema.SeverityTrace, true
	case "debug", "fine", "dbg", "d", "debu", "config":
		return schema.SeverityDebug, true
	case "info", "information", "informational", "i", "inf", "notice", "n":
		return schema.SeverityInfo, true
	case "warn", "warning", "w", "wrn", "warn_", "wa":
		return schema.SeverityWarn, true
	case "error", "err", "e", "eror", "erro", "severe":
		return schema.SeverityError, true
	case "fatal", "critical", "crit", "panic", "dpanic", "alert", "emerg", "emergency", "f", "c", "ftl", "fata":
		return schema.SeverityFatal, true
	}
	return 0, false
}

// levelNumber reads numeric levels. Bunyan/pino use 10..60 in steps of 10,
// logback's level_value 5000..50000, syslog 0 (emergency) .. 7 (debug).
func levelNumber(n float64) (schema.Severity, bool) {
	switch {
	case n >= 1000 && n <= 100000:
		return levelLogback(n)
	case n >= 10:
		switch {
		case n < 20:
			return schema.SeverityTrace, true
		case n < 30:
			return schema.SeverityDebug, true
		case n < 40:
			return schema.SeverityInfo, true
		case n < 50:
			return schema.SeverityWarn, true
		case n < 60:
			return schema.SeverityError, true
		case n <= 100:
			return schema.SeverityFatal, true
		}
	case n >= 0 && n <= 7:
		return [...]schema.Severity{21, 21, 21, 17, 13, 10, 9, 5}[int(n)], true
	}
	return 0, false
}

// severityNumber reads an explicit OpenTelemetry severity number (1..24).
func severityNumber(s string) (schema.Severity, bool) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 1 || n > 24 {
		return 0, false
	}
	return schema.Severity(n), true
}

// levelLogback reads logback's level_value: 5000 TRACE, 10000 DEBUG,
// 20000 INFO, 30000 WARN, 40000 ERROR (and above).
func levelLogback(n float64) (schema.Severity, bool) {
	switch {
	case n < 10000:
		return schema.SeverityTrace, true
	case n < 20000:
		return schema.SeverityDebug, true
	case n < 30000:
		return schema.SeverityInfo, true
	case n < 40000:
		return schema.SeverityWarn, true
	case n < 50000:
		return schema.SeverityError, true
	}
	return schema.SeverityFatal, true
}
