package patterns

import "strings"

// isVariable reports whether a segment of a word (no whitespace, no
// splitting punctuation) is a variable: it holds a digit, looks like an
// e-mail address or a file path (two '/' or two '\\'), or is a long run of
// hex letters. One pass,
// no allocation: it runs on every segment at ingest.
func isVariable(s string) bool {
	v, _ := classify(s)
	return v
}

// classify is isVariable, and whether s holds a dot, in one pass.
func classify(s string) (variable, dotted bool) {
	if len(s) > 1 && isPathStart(s) {
		return true, false
	}
	at, dotAfterAt, slashes, backslashes, letters, hexOnly := -1, false, 0, 0, 0, len(s) >= minHexRun
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			return true, false
		case c == '@':
			at = i
		case c == '/':
			slashes++
		case c == '\\':
			backslashes++
		case c == '.':
			dotted = true
			dotAfterAt = dotAfterAt || (at > 0 && i > at+1)
		case isLetter(c):
			letters++
		}
		if hexOnly && !isHexLetter(c) {
			hexOnly = false
		}
	}
	return hexOnly || ((slashes >= 2 || backslashes >= 2) && letters > 0) || (at > 0 && dotAfterAt && s[len(s)-1] != '.'), dotted
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

// isHostOrFile reports whether a segment with no digit is a domain name or
// a file name: labels of letters, '-' and '_' joined by single dots, the
// last one a top-level domain (com, net, internal, local, ... or any
// two-letter country code after two labels or more) or a common file
// extension (exe, log, json, ...). Java and Go names (dfs.DataNode,
// java.lang.Error, os.Open) end in neither, so they stay.
func isHostOrFile(s string) bool {
	dot := strings.LastIndexByte(s, '.')
	if dot <= 0 || dot == len(s)-1 || len(s)-dot > 12 {
		return false
	}
	last := s[dot+1:]
	for i := 0; i < len(last); i++ {
		if !isLetter(last[i]) {
			return false
		}
	}
	ext := isFileExt(last)
	if !ext && !isTLD(last, 3) {
		return false // most dotted names (dfs.DataNode) end here
	}
	labels, prev := 1, byte('.')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '.':
			if prev == '.' {
				return false
			}
			labels++
		case isLetter(c) || c == '-' || c == '_':
		default:
			return false
		}
		prev = c
	}
	return ext || isTLD(last, labels)
}

// isTLD reports a lowercase top-level domain; a two-letter one counts only
// in a name of three labels or more (bbc.co.uk, not user.id).
func isTLD(s string, labels int) bool {
	switch s {
	case "com", "net", "org", "edu", "gov", "mil", "int", "info", "biz", "io", "local", "localdomain",
		"internal", "lan", "home", "arpa", "cloud", "dev", "app":
		return true
	}
	return len(s) == 2 && labels >= 3 && s[0] >= 'a' && s[0] <= 'z' && s[1] >= 'a' && s[1] <= 'z'
}

// isFileExt reports a common file extension or systemd unit suffix, in any
// case.
func isFileExt(s string) bool {
	if len(s) < 2 || len(s) > 7 {
		return false
	}
	if s[0] >= 'A' && s[0] <= 'Z' {
		var low [7]byte
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			low[i] = c
		}
		s = string(low[:len(s)])
	}
	switch s {
	case "exe", "dll", "sys", "so", "log", "txt", "json", "yaml", "yml", "xml", "conf", "cfg", "ini",
		"csv", "tsv", "tmp", "gz", "tgz", "xz", "zip", "tar", "jar", "war", "pdf", "png", "jpg", "jpeg",
		"gif", "ico", "svg", "html", "htm", "css", "js", "py", "sh", "rb", "php", "sock", "pid", "db",
		"sqlite", "dat", "bin", "img", "iso", "bak", "lock", "pem", "crt", "rpm", "deb",
		"service", "socket", "scope", "slice", "mount", "timer", "target":
		return true
	}
	return false
}

// unitLen returns the length of the unit of size or time that w starts
// with when nothing but closing punctuation follows it ("MiB", "sec)",
// "ms,"), else 0: the word after a number that the number's unit spells
// out, folded into the number's <*>.
func unitLen(w string) int {
	if w == "" || !isUnitStart(w[0]) {
		return 0
	}
	n := 0
	for n < len(w) && (isLetter(w[n]) || w[n] >= 0x80) {
		n++
	}
	for _, c := range []byte(w[n:]) {
		if strings.IndexByte(")]},;.", c) < 0 {
			return 0
		}
	}
	switch w[:n] {
	case "ns", "us", "µs", "ms", "s", "sec", "secs", "second", "seconds", "min", "mins", "minute", "minutes",
		"hr", "hrs", "hour", "hours", "day", "days",
		"B", "KB", "kB", "KiB", "MB", "MiB", "GB", "GiB", "TB", "TiB", "byte", "bytes":
		return n
	}
	return 0
}

// isUnitStart reports the first bytes of the units unitLen knows.
func isUnitStart(c byte) bool {
	switch c {
	case 'n', 'u', 0xc2, 'm', 's', 'h', 'd', 'B', 'K', 'k', 'M', 'G', 'T', 'b':
		return true
	}
	return false
}

// isComparedNumber reports "<1", ">=10", "<0.5": a bound written before a
// number, one variable as a whole.
func isComparedNumber(w string) bool {
	if len(w) < 2 || (w[0] != '<' && w[0] != '>') {
		return false
	}
	w = w[1:]
	if w[0] == '=' {
		w = w[1:]
	}
	digits := 0
	for i := 0; i < len(w); i++ {
		switch c := w[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' || c == ',':
		default:
			return false
		}
	}
	return digits > 0
}
