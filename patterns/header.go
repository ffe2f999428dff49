package patterns

import "strings"

// maxHeaderWords is how far into a line StripHeader looks for a level word.
const maxHeaderWords = 10

// StripHeader returns the message of a raw log line without its leading
// header, the part that loggers write before the message:
//
//   - when a level word (INFO, ERROR, [warn], <error>, ...) is among the first
//     words and is the first word or follows a word with a digit in it (a
//     timestamp, a pid, a host id), everything up to and including it goes,
//     and so does a bracketed thread name right after it:
//     "081109 203615 148 INFO dfs.DataNode: msg" → "dfs.DataNode: msg",
//     "... INFO [IPC Server handler 5] o.a.Foo: msg" → "o.a.Foo: msg";
//   - else the leading timestamp words go ("Jun 14 15:16:01 combo sshd: msg"
//     → "combo sshd: msg").
//
// A logger or component name after the level stays: it names the event. A
// line that is all header is returned whole.
func StripHeader(line string) string {
	if rest, ok := afterLevel(line); ok && rest != "" {
		return rest
	}
	rest := trimSpace(line)
	for rest != "" {
		word, after := cutWord(rest)
		if !isHeaderWord(word) {
			break
		}
		rest = after
	}
	if rest == "" {
		return line
	}
	return rest
}

// afterLevel finds the level word of a header and returns what follows it.
func afterLevel(line string) (string, bool) {
	rest := trimSpace(line)
	digitSeen := false
	for i := 0; i < maxHeaderWords && rest != ""; i++ {
		word, after := cutWord(rest)
		if isLevelWord(word) && (i == 0 || digitSeen) {
			return skipBracket(after), true
		}
		digitSeen = digitSeen || strings.ContainsAny(word, "0123456789")
		rest = after
	}
	return "", false
}

// skipBracket drops a bracketed group at the start of s, nested brackets
// included: right after the level it is the thread or code location
// ("[main]", "[IPC Server handler 5 on 62270]", "[Worker[id=1]@77]").
func skipBracket(s string) string {
	if s == "" || s[0] != '[' {
		return s
	}
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			depth--
			if depth == 0 {
				return trimSpace(s[i+1:])
			}
		}
	}
	return s
}

// cutWord splits s, which starts with a non-space, into its first word and
// the rest without leading spaces.
func cutWord(s string) (word, rest string) {
	i := 0
	for i < len(s) && !isSpace(s[i]) {
		i++
	}
	return s[:i], trimSpace(s[i:])
}

func trimSpace(s string) string {
	for s != "" && isSpace(s[0]) {
		s = s[1:]
	}
	return s
}

// isLevelWord reports a level word as headers write it: in capitals
// (ERROR, WARN:), or in any case inside brackets ([warn], <error>).
func isLevelWord(w string) bool {
	inner := strings.Trim(w, "[]()<>:|")
	if inner == "" || !isLevel(inner) {
		return false
	}
	bracketed := strings.IndexByte("[(<", w[0]) >= 0
	return bracketed || inner == strings.ToUpper(inner)
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
