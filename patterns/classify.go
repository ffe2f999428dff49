package patterns

import "strings"

// isVariable reports whether a segment of a word (no whitespace, no
// splitting punctuation) is a variable: it holds a digit, looks like an
// e-mail address or a file path, or is a long run of hex letters. One pass,
// no allocation: it runs on every segment at ingest.
func isVariable(s string) bool {
	if len(s) > 1 && isPathStart(s) {
		return true
	}
	at, dotAfterAt, slashes, letters, hexOnly := -1, false, 0, 0, len(s) >= minHexRun
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			return true
		case c == '@':
			at = i
		case c == '/':
			slashes++
		case c == '.' && at > 0 && i > at+1:
			dotAfterAt = true
		case isLetter(c):
			letters++
		}
		if hexOnly && !isHexLetter(c) {
			hexOnly = false
		}
	}
	return hexOnly || (slashes >= 2 && letters > 0) || (at > 0 && dotAfterAt && s[len(s)-1] != '.')
}

// minHexRun is the shortest run of hex letters taken as an id without a
// digit in it (no English word is that long and made of a-f only).
const minHexRun = 12

func isHexLetter(c byte) bool {
	return (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// isPathStart reports whether s starts like a file path: "/x", "./",
// "../" or "~/". Paths with two slashes or more anywhere count too (see
// isVariable).
func isPathStart(s string) bool {
	return (s[0] == '/' && s[1] != '/') || strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") || strings.HasPrefix(s, "~/")
}
