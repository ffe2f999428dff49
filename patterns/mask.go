package patterns

import (
	"strings"
	"unsafe"

	"github.com/faultline/faultline/schema"
)

// Wildcard stands for a variable part of a message in a template.
const Wildcard = "<*>"

// Mask replaces the variable parts of msg with <*> (see the package doc for
// what counts as variable), folds runs of words that are all variable into
// one <*> so that lists of any length share a template, and folds
// whitespace runs into single spaces. It is stateless and deterministic:
// the same message gives the same template in every process. An empty or
// all-blank msg gives "".
func Mask(msg string) string {
	return mask(msg, false)
}

// mask is Mask; with keepWords, a key=value value made of plain words is
// left as it is, for the Miner to judge from how many values it sees.
func mask(msg string, keepWords bool) string {
	b := make([]byte, 0, len(msg)+8)
	prevWild := false // the last word written is a bare <*>
	i := 0
	for i < len(msg) {
		for i < len(msg) && isSpace(msg[i]) {
			i++
		}
		j := i
		for j < len(msg) && !isSpace(msg[j]) {
			j++
		}
		if j > i {
			// A unit after a number joins the number's <*> ("3.4 MiB",
			// "(1.2 KB)", "<1 sec"): a size or a duration is one variable
			// whatever its unit.
			if n := len(b); n > 2 && b[n-1] == '>' && b[n-2] == '*' && b[n-3] == '<' && isUnitStart(msg[i]) {
				if u := unitLen(msg[i:j]); u > 0 {
					b = append(b, msg[i+u:j]...)
					prevWild = prevWild && u == j-i
					i = j
					continue
				}
			}
			start, word := len(b), len(b)
			if start > 0 {
				b = append(b, ' ')
				word++
			}
			b = maskOneWord(b, msg[i:j], msg[j:], keepWords)
			wild := string(b[word:]) == Wildcard
			if wild && prevWild {
				b = b[:start]
			}
			prevWild = wild
		}
		i = j
	}
	// b is never written again, so the string may share its bytes.
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// maskOneWord appends the masked form of word w; rest is the text after it.
func maskOneWord(b []byte, w, rest string, keepWords bool) []byte {
	switch {
	case isCalendar(w) && dateAround(b, rest):
		return append(b, Wildcard...)
	case isHexID(w), (w[0] == '<' || w[0] == '>') && isComparedNumber(w):
		return append(b, Wildcard...)
	}
	return maskWord(b, w, keepWords)
}

// maskWord appends the masked form of one whitespace-free word to b.
func maskWord(b []byte, w string, keepWords bool) []byte {
	m := wordMasker{b: b, w: w, lastVar: -1, keepWords: keepWords}
	m.run()
	return m.b
}

// wordMasker scans one word segment by segment, appending to b. lastVar is
// where the last <*> written ends (-1 when none), so that "<*>:<*>" can
// collapse.
type wordMasker struct {
	b         []byte
	w         string
	lastVar   int
	keepWords bool
}

func (m *wordMasker) run() {
	w := m.w
	i := 0
	for i < len(w) {
		c := w[i]
		switch {
		case strings.HasPrefix(w[i:], Wildcard+"://"):
			i = m.url(i, i+len(Wildcard))
		case strings.HasPrefix(w[i:], Wildcard):
			m.variable()
			i += len(Wildcard)
		case c == '"' || c == '\'':
			i = m.quote(i)
		case c == '=':
			m.b = append(m.b, '=')
			i = m.value(i + 1)
		case isDelim(c):
			m.b = append(m.b, c)
			i++
		case isLeader(w, i):
			for i < len(w) && w[i] == '.' {
				m.b = append(m.b, '.')
				i++
			}
		default:
			i = m.plain(i)
		}
	}
}

// plain handles the run of non-punctuation bytes at w[i]: a URL scheme
// when "://" follows it, else a segment.
func (m *wordMasker) plain(i int) int {
	w := m.w
	j := i
	for j < len(w) && !isDelim(w[j]) && w[j] != '"' && w[j] != '\'' && w[j] != '=' && !isLeader(w, j) {
		j++
	}
	if strings.HasPrefix(w[j:], "://") {
		return m.url(i, j)
	}
	// A host or file name is variable too, but not as a key (user.id=).
	s := w[i:j]
	if v, dotted := classify(s); v || (dotted && (j == len(w) || w[j] != '=') && isHostOrFile(s)) {
		m.variable()
	} else {
		m.b = append(m.b, s...)
	}
	return j
}

// quote handles a quote at w[i]: a single-word quoted value ('bob',
// "x-1") that opens at a segment start and closes at a segment end becomes
// '<*>'; any other quote, and the quotes around a URL or a key ("id":),
// are written as punctuation.
func (m *wordMasker) quote(i int) int {
	w, q := m.w, m.w[i]
	// A masked <*> next to a quote counts as the text it replaced, so that
	// masking a template again changes nothing.
	atStart := (i == 0 || isDelim(w[i-1]) || w[i-1] == '=') && !strings.HasSuffix(w[:i], Wildcard)
	if atStart {
		if k := strings.IndexByte(w[i+1:], q); k > 0 {
			end := i + 1 + k
			isURL := strings.Contains(w[i+1:end], "://")
			closes := end+1 == len(w) || (isDelim(w[end+1]) && !strings.HasPrefix(w[end+1:], Wildcard))
			isKey := end+1 < len(w) && w[end+1] == ':'
			if !isURL && !isKey && closes {
				m.b = append(m.b, q)
				m.variable()
				m.b = append(m.b, q)
				return end + 1
			}
		}
	}
	m.b = append(m.b, q)
	return i + 1
}

// value handles the value of key=value starting at w[i]: everything up to
// the next closing punctuation is one variable. An empty value stays empty;
// a quoted value goes through quote.
func (m *wordMasker) value(i int) int {
	w := m.w
	if i < len(w) && (w[i] == '"' || w[i] == '\'') {
		return m.quote(i)
	}
	if strings.HasPrefix(w[i:], Wildcard) {
		return i
	}
	j := i
	for j < len(w) && !endsValue(w[j]) {
		j++
	}
	if m.keepWords && !isVariable(w[i:j]) {
		return i
	}
	if j > i {
		m.variable()
	}
	return j
}

// url handles a URL whose scheme is w[i:j] (any segment before "://", so
// that masking twice changes nothing): the scheme and the host stay
// (the host names a dependency; either is masked when it holds a digit), and
// the port, path and query that follow become one <*>. The URL ends at a
// quote, a closing bracket or the end of the word, less trailing ",.;".
func (m *wordMasker) url(i, j int) int {
	w := m.w
	if w[i:j] == Wildcard {
		m.variable()
	} else {
		m.segment(w[i:j])
	}
	m.b = append(m.b, "://"...)
	h := j + 3
	end := h
	for end < len(w) && strings.IndexByte("\"')]>|", w[end]) < 0 {
		if strings.HasPrefix(w[end:], Wildcard) {
			end += len(Wildcard) - 1
		}
		end++
	}
	for end > h && strings.IndexByte(",.;", w[end-1]) >= 0 {
		end--
	}
	k := h
	for k < end && strings.IndexByte(":/?#", w[k]) < 0 {
		k++
	}
	m.segment(w[h:k])
	if k < end {
		m.b = append(m.b, w[k])
		if k+1 < end {
			m.variable()
		}
	}
	return end
}

// segment writes a run of non-punctuation bytes, masked when variable.
func (m *wordMasker) segment(s string) {
	if isVariable(s) {
		m.variable()
		return
	}
	m.b = append(m.b, s...)
}

// variable writes <*>, unless the word so far ends in "<*>:" or "<*>,",
// in which case the separator is dropped and the two variables become one.
func (m *wordMasker) variable() {
	n := len(m.b)
	if m.lastVar >= 0 && n == m.lastVar+1 {
		if c := m.b[n-1]; c == ':' || c == ',' {
			m.b = m.b[:n-1]
			return
		}
	}
	m.b = append(m.b, Wildcard...)
	m.lastVar = len(m.b)
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// isDelim reports the punctuation that splits a word into segments.
func isDelim(c byte) bool {
	switch c {
	case ':', ',', ';', '(', ')', '[', ']', '{', '}', '<', '>', '|':
		return true
	}
	return false
}

// isLeader reports whether w[i:] starts with two or more dots: an
// ellipsis or a run of leader dots ("depth......3"), which splits segments.
func isLeader(w string, i int) bool {
	return w[i] == '.' && i+1 < len(w) && w[i+1] == '.'
}

// endsValue reports the bytes that end the value of key=value.
func endsValue(c byte) bool {
	switch c {
	case ',', ';', ')', ']', '}', '&', '>', '|', '"', '\'':
		return true
	}
	return false
}

// SignatureOf hashes a service and a template into an opaque signature:
// sixteen lowercase hex characters, FNV-1a 64 of service, a zero byte and
// template, the same in every process. It does not allocate but for the
// result.
func SignatureOf(service, template string) schema.Signature {
	h := fnvAdd(fnvOffset, service)
	h = (h ^ 0) * fnvPrime
	h = fnvAdd(h, template)
	return schema.Signature(hex16(h))
}

// FNV-1a 64 parameters.
const (
	fnvOffset uint64 = 14695981039346656037
	fnvPrime  uint64 = 1099511628211
)

func fnvAdd(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * fnvPrime
	}
	return h
}

// hex16 formats v as sixteen lowercase hex digits.
func hex16(v uint64) string {
	const digits = "0123456789abcdef"
	var b [16]byte
	for i := 15; i >= 0; i-- {
		b[i] = digits[v&0xf]
		v >>= 4
	}
	return string(b[:])
}
