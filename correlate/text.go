package correlate

import (
	"strings"

	"github.com/faultline/faultline/schema"
)

// Sizes of the lowercased text a record is classified on: the head of the
// message, where loggers put the summary, and its tail, where a Java stack
// trace names its root "Caused by:".
const (
	textHead = 640
	textTail = 256
	textAttr = 96
	textCap  = textHead + textTail + 3*textAttr + 8
)

// lowered is a lowercased view of a record's text. Text without upper
// case letters is used as is; otherwise it is copied once.
type lowered string

// lowerText is the lowercased head and tail of r.Body and the exception
// and error attributes, separated by newlines. buf is scratch space that
// saves an allocation when the text needs a copy.
func lowerText(buf []byte, r *schema.Record) lowered {
	body := r.Body
	extra := false
	for _, k := range [...]string{schema.AttrExceptionType, "exception.message", "error.type"} {
		if r.Attrs[k] != "" {
			extra = true
		}
	}
	if !extra && len(body) <= textHead+textTail && !hasUpper(body) {
		return lowered(body)
	}
	b := buf[:0]
	if len(body) > textHead+textTail {
		b = appendLower(b, body[:textHead])
		b = append(b, '\n')
		b = appendLower(b, body[len(body)-textTail:])
	} else {
		b = appendLower(b, body)
	}
	for _, k := range [...]string{schema.AttrExceptionType, "exception.message", "error.type"} {
		if v := r.Attrs[k]; v != "" {
			b = append(b, '\n')
			b = appendLower(b, v[:min(len(v), textAttr)])
		}
	}
	return lowered(b)
}

func hasUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return true
		}
	}
	return false
}

func appendLower(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return b
}

// has reports whether any of subs (lowercase) occurs in l.
func (l lowered) has(subs ...string) bool {
	for _, s := range subs {
		if strings.Contains(string(l), s) {
			return true
		}
	}
	return false
}

// index is strings.Index for a lowercase string.
func (l lowered) index(s string) int { return strings.Index(string(l), s) }

// statusAfter finds an HTTP status written after one of the words
// ("status 503", "status code: 503", "HTTP/1.1 503"): the first run of
// exactly three digits within a few bytes, in 100..599. 0 when none.
func (l lowered) statusAfter(words ...string) int {
	for _, w := range words {
		from := 0
		for {
			i := strings.Index(string(l[from:]), w)
			if i < 0 {
				break
			}
			at := from + i + len(w)
			if code := threeDigits(string(l[at:min(len(l), at+14)])); code != 0 {
				return code
			}
			from = at
		}
	}
	return 0
}

func threeDigits(b string) int {
	for i := 0; i < len(b); i++ {
		if !isDigit(b[i]) {
			continue
		}
		j := i
		for j < len(b) && isDigit(b[j]) {
			j++
		}
		if j-i == 3 && (i == 0 || (b[i-1] != '.' && b[i-1] != '/')) {
			n := int(b[i]-'0')*100 + int(b[i+1]-'0')*10 + int(b[i+2]-'0')
			if n >= 100 && n <= 599 {
				return n
			}
		}
		i = j
	}
	return 0
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// exceedsDuration finds "exceeded 3000ms" / "exceeded 3s" / "after 3000 ms"
// style phrases: a word followed by a number and a time unit.
func (l lowered) exceedsDuration(words ...string) bool {
	for _, w := range words {
		from := 0
		for {
			i := strings.Index(string(l[from:]), w)
			if i < 0 {
				break
			}
			at := from + i + len(w)
			if numberWithUnit(string(l[at:min(len(l), at+24)])) {
				return true
			}
			from = at
		}
	}
	return false
}

func numberWithUnit(b string) bool {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == ':' || b[i] == '=') {
		i++
	}
	start := i
	for i < len(b) && (isDigit(b[i]) || b[i] == '.') {
		i++
	}
	if i == start {
		return false
	}
	for i < len(b) && b[i] == ' ' {
		i++
	}
	rest := b[i:]
	for _, u := range [...]string{"ms", "s", "sec", "secs", "second", "seconds", "millis",
		"milliseconds", "µs", "us", "m", "min", "mins", "minutes"} {
		if strings.HasPrefix(rest, u) && (len(rest) == len(u) || !isLetter(rest[len(u)])) {
			return true
		}
	}
	return false
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
