package patterns

import "strings"

// StripHeader returns the message of a raw log line without its leading
// header: the timestamp words and the level word that loggers put first
// ("2024-05-01 12:00:00,123 ERROR msg", "[2024-05-01T12:00:00Z] [warn] msg",
// "Jun 14 15:16:01 ..."). It stops at the first word that is neither, so
// a logger or thread name stays in the message. A line that is all header
// is returned whole.
func StripHeader(line string) string {
	rest := strings.TrimLeft(line, " \t")
	for rest != "" {
		word, after, _ := strings.Cut(rest, " ")
		if !isHeaderWord(word) {
			break
		}
		rest = strings.TrimLeft(after, " \t")
	}
	if rest == "" {
		return line
	}
	return rest
}

// isHeaderWord reports whether w, without brackets and trailing
// punctuation, is a level word or a piece of a timestamp.
func isHeaderWord(w string) bool {
	w = strings.Trim(w, "[]()<>:,|")
	if w == "" {
		return false
	}
	return isLevel(w) || isTimePiece(w) || isCalendar(w)
}

// isLevel reports the common log level words, in any case.
func isLevel(w string) bool {
	switch strings.ToUpper(w) {
	case "TRACE", "DEBUG", "DBG", "INFO", "INF", "NOTICE", "WARN", "WARNING", "WRN",
		"ERROR", "ERR", "EROR", "CRIT", "CRITICAL", "FATAL", "FTL", "ALERT", "EMERG", "PANIC", "SEVERE":
		return true
	}
	return false
}

// isTimePiece reports whether w is made of digits and the punctuation of
// dates and times (2024-05-01T12:00:00.123+02:00, 12:00:00,123, 1717000000).
func isTimePiece(w string) bool {
	digits := 0
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
		case strings.IndexByte("-:.,/+TZ", c) >= 0:
		default:
			return false
		}
	}
	return digits > 0
}
