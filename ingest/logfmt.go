package ingest

import (
	"strconv"
	"strings"
)

// parseLogfmt splits a logfmt line (key=value key="quoted value" ...) into
// pairs. It reports false unless the line starts with a pair and holds at
// least two, so prose with one "a=b" in it stays text.
func parseLogfmt(line string, emit func(k, v string)) bool {
	var keys, vals []string
	s := strings.TrimSpace(line)
	for s != "" {
		eq := strings.IndexByte(s, '=')
		sp := strings.IndexAny(s, " \t")
		if eq <= 0 || (sp >= 0 && sp < eq) {
			if len(keys) == 0 {
				return false
			}
			if sp < 0 { // a trailing bare word
				break
			}
			s = strings.TrimLeft(s[sp:], " \t")
			continue
		}
		k := s[:eq]
		v, rest, ok := logfmtValue(s[eq+1:])
		if !ok {
			return false
		}
		keys, vals = append(keys, k), append(vals, v)
		s = strings.TrimLeft(rest, " \t")
	}
	if len(keys) < 2 {
		return false
	}
	for i := range keys {
		emit(keys[i], vals[i])
	}
	return true
}

func logfmtValue(s string) (val, rest string, ok bool) {
	if s == "" || s[0] != '"' {
		i := strings.IndexAny(s, " \t")
		if i < 0 {
			return s, "", true
		}
		return s[:i], s[i:], true
	}
	i := closingQuote(s)
	if i < 0 {
		return "", "", false
	}
	v, err := strconv.Unquote(s[:i+1])
	if err != nil {
		v = s[1:i] // a lenient reader: the text between the quotes
	}
	return v, s[i+1:], true
}
