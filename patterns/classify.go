package patterns

import "strings"

// isVariable reports whether a segment of a word (no whitespace, no
// splitting punctuation) is a variable: it holds a digit, looks like an
// e-mail address or a file path, or is a long run of hex letters.
func isVariable(s string) bool {
	if isPath(s) {
		return true
	}
	at, dotAfterAt, hexOnly := -1, false, len(s) >= minHexRun
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			return true
		case c == '@':
			at = i
		case c == '.' && at > 0 && i > at+1:
			dotAfterAt = true
		}
		if hexOnly && !isHexLetter(c) {
			hexOnly = false
		}
	}
	return hexOnly || (at > 0 && dotAfterAt && s[len(s)-1] != '.')
}

// minHexRun is the shortest run of hex letters taken as an id without a
// digit in it (no English word is that long and made of a-f only).
const minHexRun = 12

func isHexLetter(c byte) bool {
	return (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// isPath reports whether s looks like a file or URL path: it starts with
// '/', './', '../' or '~/' and names something, or it has two slashes or more (a/b/c).
func isPath(s string) bool {
	if len(s) > 1 && s[0] == '/' && s[1] != '/' {
		return true
	}
	if strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") || strings.HasPrefix(s, "~/") {
		return true
	}
	return strings.Count(s, "/") >= 2
}
