package patterns

// isCalendar reports whether w is an English month or weekday name, or a
// common time-zone abbreviation: the words of a written-out timestamp.
func isCalendar(w string) bool {
	for len(w) > 0 && (w[len(w)-1] == ',' || w[len(w)-1] == '.') {
		w = w[:len(w)-1]
	}
	if len(w) == 0 || len(w) > len("wednesday") || !isLetter(w[0]) {
		return false
	}
	var low [9]byte
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	switch string(low[:len(w)]) {
	case "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
		"january", "february", "march", "april", "june", "july", "august", "september",
		"october", "november", "december",
		"mon", "tue", "wed", "thu", "fri", "sat", "sun",
		"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
		"utc", "gmt", "pst", "pdt", "mst", "mdt", "cst", "cdt", "est", "edt", "cet", "cest", "bst", "ist", "jst":
		return true
	}
	return false
}

// dateAround reports whether a calendar word sits in a timestamp: the
// masked output before it ends in <*>, or the next word starts with a digit
// or is itself a calendar word.
func dateAround(before []byte, rest string) bool {
	if n := len(before); n >= len(Wildcard)+1 && string(before[n-1-len(Wildcard):n-1]) == Wildcard {
		return true
	}
	for rest != "" && isSpace(rest[0]) {
		rest = rest[1:]
	}
	if rest == "" {
		return false
	}
	if rest[0] >= '0' && rest[0] <= '9' {
		return true
	}
	k := 0
	for k < len(rest) && !isSpace(rest[k]) {
		k++
	}
	return isCalendar(rest[:k])
}

// isHexID reports whether w is groups of hex digits joined by single ':',
// '-' or '.', with at least one digit and two separators: MAC and IPv6
// addresses (with one "::"), UUIDs, times. Its letter-only groups are ids too, so the word
// is one variable.
func isHexID(w string) bool {
	digits, seps, double := 0, 0, false
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == ':' && i > 0 && w[i-1] == ':' && !double && i < len(w)-1:
			double = true // the one "::" of an IPv6 address
		case c == ':' || c == '-' || c == '.':
			if i == 0 || i == len(w)-1 || !isHexChar(w[i-1]) {
				return false
			}
			seps++
		case !isHexLetter(c):
			return false
		}
	}
	return digits > 0 && seps >= 2
}

func isHexChar(c byte) bool {
	return (c >= '0' && c <= '9') || isHexLetter(c)
}

func isLetter(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}
