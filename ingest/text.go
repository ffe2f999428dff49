package ingest

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrBadPatterns is returned for a text pattern file or pattern that cannot be used.
var ErrBadPatterns = errors.New("bad text patterns")

// TextPattern is one way to find fields in a plain text line: a regular
// expression (Go RE2 syntax) whose named groups fill fields. A group is
// named like a JSON key (trace_id, span_id, parent_span_id, level, service,
// or any other name, which becomes an attribute); "__" in a group name
// stands for a dot, so dd__trace_id reads a Datadog decimal id.
type TextPattern struct {
	Name  string `json:"name"`
	Regex string `json:"regex"`
}

// TextPatternFile is the JSON file named by --patterns or FAULTLINE_PATTERNS:
// {"patterns": [{"name": "...", "regex": "..."}]}.
type TextPatternFile struct {
	Patterns []TextPattern `json:"patterns"`
}

type textPattern struct {
	re    *regexp.Regexp
	hints []int    // of TextMatcher.hints; the pattern runs only when one occurs (none: always)
	keys  []string // key per subexpression ("" = unnamed)
}

// TextMatcher finds levels, ids and services in plain text lines: the
// user's patterns first, then the built-in ones, then a bare level word
// near the start of the line. It is safe for concurrent use.
type TextMatcher struct {
	pats  []textPattern
	hints []string     // the built-in patterns' hints, lower-case ASCII, each once
	first [256][]uint8 // of hints, those a byte can begin (either case)
}

// maxHints bounds TextMatcher.hints: one line's scan keeps a position per hint.
const maxHints = 32

// LoadTextPatterns reads a TextPatternFile from path.
func LoadTextPatterns(path string) ([]TextPattern, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read text patterns %q: %w", path, err)
	}
	var f TextPatternFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("cannot read text patterns %q: %w: %v", path, ErrBadPatterns, err)
	}
	return f.Patterns, nil
}

// NewTextMatcher compiles the user's extra patterns ahead of the built-in ones.
func NewTextMatcher(extra []TextPattern) (*TextMatcher, error) {
	m := &TextMatcher{}
	for _, p := range extra {
		re, err := regexp.Compile(p.Regex)
		if err != nil {
			return nil, fmt.Errorf("cannot compile text pattern %q: %w: %v", truncate(p.Name, 40), ErrBadPatterns, err)
		}
		m.pats = append(m.pats, compilePattern(re, nil))
	}
	for _, b := range builtinPatterns() {
		p := compilePattern(regexp.MustCompile(b.re), nil)
		for _, h := range b.hints {
			p.hints = append(p.hints, m.hint(h))
		}
		m.pats = append(m.pats, p)
	}
	return m, nil
}

// hint is the index of h in m.hints, added when new. A hint is lower-case
// ASCII without a k: a pattern's (?i)k also matches U+212A, the Kelvin
// sign, which a hint sought in any case of ASCII would miss. (Its i does
// not match U+0130, so a line the pattern matches holds its hint in ASCII.)
func (m *TextMatcher) hint(h string) int {
	if i := slices.Index(m.hints, h); i >= 0 {
		return i
	}
	if h == "" || strings.ContainsRune(h, 'k') || strings.ToLower(h) != h || !isASCII(h) || len(m.hints) == maxHints {
		panic(fmt.Sprintf("text pattern hint %q: not a lower-case ASCII hint without k, or one too many", h))
	}
	m.hints = append(m.hints, h)
	i := len(m.hints) - 1
	c := h[0]
	m.first[c] = append(m.first[c], uint8(i))
	if 'a' <= c && c <= 'z' {
		m.first[c-'a'+'A'] = append(m.first[c-'a'+'A'], uint8(i))
	}
	return i
}

func compilePattern(re *regexp.Regexp, hints []int) textPattern {
	keys := re.SubexpNames()
	for i, k := range keys {
		keys[i] = strings.ReplaceAll(k, "__", ".")
	}
	return textPattern{re: re, hints: hints, keys: keys}
}

// fill sets in d what a match of p found (sub: its submatches), never
// overwriting a field d has: a group named as a field fills it, any other
// named group becomes an attribute.
func (p *textPattern) fill(sub []string, d *detected) {
	for j := 1; j < len(sub); j++ {
		if p.keys[j] == "" || p.keys[j] == "k" || sub[j] == "" {
			continue
		}
		f, _ := aliasOf(p.keys[j])
		if f == fieldNone {
			d.attr(p.keys[j], sub[j])
			continue
		}
		d.setIfAbsent(f, p.keys[j], sub[j])
	}
}

// findHints sets at[h] to the first offset in line of hint h, in any
// case of ASCII, or -1: one pass over the line for all hints.
func (m *TextMatcher) findHints(line string, at *[maxHints]int) {
	for i := range m.hints {
		at[i] = -1
	}
	left := len(m.hints)
	for i := 0; i < len(line) && left > 0; i++ {
		for _, h := range m.first[line[i]] {
			if at[h] < 0 && hasPrefixFoldASCII(line[i:], m.hints[h]) {
				at[h] = i
				left--
			}
		}
	}
}

// hasPrefixFoldASCII reports whether s begins with lower, a lower-case
// ASCII string, in any case of ASCII.
func hasPrefixFoldASCII(s, lower string) bool {
	if len(s) < len(lower) {
		return false
	}
	for j := 0; j < len(lower); j++ {
		c := s[j]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[j] {
			return false
		}
	}
	return true
}

type builtin struct {
	re    string
	hints []string
}

// builtinPatterns are the common ways applications write ids and levels
// into text: key=value and key: value pairs (Spring's "TraceID: … SpanID: …",
// a bare "trace=…" or "[trace=…]"),
// Sleuth/Micrometer's [app,trace,span], and a W3C traceparent.
func builtinPatterns() []builtin {
	const kv = `["']?\s*[:=]\s*["']?`
	return []builtin{
		{`(?i)(?:^|[^a-z0-9_])(?:otel|x-b3-)?trace[_.-]?id` + kv + `(?P<trace_id>[0-9a-f]{32}|[0-9a-f]{16}|[0-9a-f-]{36})\b`, []string{"trace"}},
		// A bare trace=<32 hex> or [trace=…]; not stacktrace= or my_trace=.
		{`(?i)(?:^|[^a-z0-9_])trace=["']?(?P<trace_id>[0-9a-f]{32})\b`, []string{"trace="}},
		{`(?i)dd\.trace_id` + kv + `(?P<dd__trace_id>[0-9]{1,20})\b`, []string{"dd.trace_id"}},
		{`(?i)(?:^|[^a-z0-9_])(?:otel|x-b3-)?span[_.-]?id` + kv + `(?P<span_id>[0-9a-f]{16})\b`, []string{"span"}},
		{`(?i)dd\.span_id` + kv + `(?P<dd__span_id>[0-9]{1,20})\b`, []string{"dd.span_id"}},
		{`(?i)parent[_.-]?(?:span[_.-]?)?id` + kv + `(?P<parent_span_id>[0-9a-f]{16})\b`, []string{"parent"}},
		{`\b00-(?P<trace_id>[0-9a-f]{32})-(?P<span_id>[0-9a-f]{16})-[0-9a-f]{2}\b`, []string{"00-"}},
		{`\[(?P<service>[\w.-]*),(?P<trace_id>[0-9a-f]{16}|[0-9a-f]{32}),(?P<span_id>[0-9a-f]{16})(?:,[\w-]*)*\]`, []string{"["}},
		{`(?i)(?:^|[^a-z0-9_.])(?:level|lvl|severity|loglevel)` + kv + `(?P<level>[a-z]+)\b`, []string{"level", "lvl", "severity"}},
		{`(?i)(?:^|[^a-z0-9_.])(?:resource\.(?:attributes\.)?)?(?P<k>service[._]name|service|app|otelservicename)=["']?(?P<service>[\w.-]+)`, []string{"service", "app="}},
	}
}

// detect fills d from a plain text line: patterns first (a field already
// found is never overwritten), then a bare level word.
func (m *TextMatcher) detect(line string, d *detected) {
	var at [maxHints]int
	m.findHints(line, &at)
	for i := range m.pats {
		p := &m.pats[i]
		text := line
		if len(p.hints) > 0 {
			first := -1
			for _, h := range p.hints {
				if a := at[h]; a >= 0 && (first < 0 || a < first) {
					first = a
				}
			}
			if first < 0 {
				continue
			}
			// Start a little before the hint, at a rune's start.
			from := max(0, first-24)
			for from > 0 && !utf8.RuneStart(line[from]) {
				from--
			}
			text = line[from:]
		}
		p.fill(p.re.FindStringSubmatch(text), d)
	}
	if !d.has[fieldLevel] {
		if w := bareLevel(line); w != "" {
			d.setIfAbsent(fieldLevel, "level", w)
		}
	}
}

// bareLevel finds a level written as a word of its own among the first
// tokens of a line: an upper-case level name (ERROR, [WARN], INFO:, ...)
// or a klog/glog prefix such as E1130.
func bareLevel(line string) string {
	if len(line) > 160 {
		line = line[:160]
	}
	i := -1
	for tok := range strings.FieldsSeq(line) { // the fields of strings.Fields, without its slice
		if i++; i >= 6 {
			break
		}
		if i == 0 && len(tok) == 5 && strings.ContainsRune("IWEF", rune(tok[0])) && isDigits(tok[1:]) {
			return tok[:1]
		}
		t := trimLevelPunct(tok)
		if len(t) < 3 || !isUpper(t) {
			continue
		}
		if isLevelWord(t) {
			return t
		}
	}
	return ""
}

// isLevelWord reports whether the word t, made lower case, is a level
// word; short ASCII is made lower case on the stack.
func isLevelWord(t string) bool {
	var buf [16]byte
	if len(t) > len(buf) || !isASCII(t) {
		_, ok := levelWord(strings.ToLower(t))
		return ok
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	_, ok := levelWord(string(buf[:len(t)]))
	return ok
}

// isASCII reports whether s is all ASCII.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// isUpper reports whether strings.ToUpper(s) == s, without building the
// upper-case copy: every rune is valid UTF-8 (ToUpper replaces an invalid
// byte) and its own upper case. A U+FFFD in s counts as not upper case
// (it is, but no level word holds one).
func isUpper(s string) bool {
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf:
			if 'a' <= r && r <= 'z' {
				return false
			}
		case r == utf8.RuneError:
			return false
		case unicode.ToUpper(r) != r:
			return false
		}
	}
	return true
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	c, _ := cutString(s, n)
	return c + "…"
}

// levelPunct is what may wrap a level word: [ERROR], <WARN>, INFO:, |E|.
var levelPunct = func() (set [256]bool) {
	for _, c := range []byte("[]()<>:|,;-") {
		set[c] = true
	}
	return set
}()

// trimLevelPunct is strings.Trim(tok, "[]()<>:|,;-") without building the
// cutset's table on every call.
func trimLevelPunct(tok string) string {
	i, j := 0, len(tok)
	for i < j && levelPunct[tok[i]] {
		i++
	}
	for j > i && levelPunct[tok[j-1]] {
		j--
	}
	return tok[i:j]
}
