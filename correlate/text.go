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

// lowered is a lowercased view of a record's text with a bitmap of the
// three-byte sequences it contains: a pattern one of whose trigrams is
// missing cannot occur, so most patterns are rejected without a scan.
type lowered struct {
	s     string
	grams [gramWords]uint64
}

const (
	gramBits  = 4096
	gramWords = gramBits / 64
)

func gramHash(a, b, c byte) uint32 {
	return (uint32(a)<<16 | uint32(b)<<8 | uint32(c)) * 0x9E3779B1 >> (32 - 12)
}

// init fills l from the lowercased head and tail of r.Body and the
// exception and error attributes, separated by newlines. Text without
// upper case letters is used as is; otherwise it is copied once (buf is
// scratch space for building the copy).
func (l *lowered) init(buf []byte, r *schema.Record) {
	body := r.Body
	extra := false
	for _, k := range [...]string{schema.AttrExceptionType, "exception.message", "error.type"} {
		if r.Attrs[k] != "" {
			extra = true
		}
	}
	if !extra && len(body) <= textHead+textTail && !hasUpper(body) {
		l.s = body
	} else {
		l.s = string(lowerInto(buf[:0], r))
	}
	for i := 0; i+2 < len(l.s); i++ {
		h := gramHash(l.s[i], l.s[i+1], l.s[i+2])
		l.grams[h>>6] |= 1 << (h & 63)
	}
}

func lowerInto(b []byte, r *schema.Record) []byte {
	body := r.Body
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
	return b
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

// mayHave reports whether sub can occur in l: false when one of its first,
// middle or last trigrams is absent.
func (l *lowered) mayHave(sub string) bool {
	n := len(sub)
	if n < 3 {
		return true
	}
	for _, i := range [...]int{0, (n - 3) / 2, n - 3} {
		h := gramHash(sub[i], sub[i+1], sub[i+2])
		if l.grams[h>>6]&(1<<(h&63)) == 0 {
			return false
		}
	}
	return true
}

// has reports whether any of subs (lowercase) occurs in l.
func (l *lowered) has(subs ...string) bool {
	for _, s := range subs {
		if l.mayHave(s) && strings.Contains(l.s, s) {
			return true
		}
	}
	return false
}

// index is strings.Index for a lowercase string.
func (l *lowered) index(s string) int {
	if !l.mayHave(s) {
		return -1
	}
	return strings.Index(l.s, s)
}

// statusAfter finds an HTTP status written after one of the words
// ("status 503", "status code: 503", "HTTP/1.1 503"): the first run of
// exactly three digits within a few bytes, in 100..599. 0 when none.
func (l *lowered) statusAfter(words ...string) int {
	code := 0
	l.after(words, 14, func(rest string) bool { code = threeDigits(rest); return code != 0 })
	return code
}

// after calls f with the n bytes that follow each occurrence of each word,
// until f returns true; it reports whether one did.
func (l *lowered) after(words []string, n int, f func(rest string) bool) bool {
	for _, w := range words {
		from := 0
		for {
			i := strings.Index(l.s[from:], w)
			if i < 0 {
				break
			}
			at := from + i + len(w)
			if f(l.s[at:min(len(l.s), at+n)]) {
				return true
			}
			from = at
		}
	}
	return false
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
func (l *lowered) exceedsDuration(words ...string) bool {
	return l.after(words, 24, numberWithUnit)
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
