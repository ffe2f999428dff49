package runbookgen

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Named caps on text that comes from logs, in runes. Longer values are cut
// and end with "…".
const (
	MaxServiceLen    = 64
	MaxOperationLen  = 100
	MaxTemplateLen   = 200
	MaxEntryPointLen = 100
	MaxEvidenceLen   = 300
	MaxNoteLen       = 400
	// MaxListItems caps lists taken from a candidate (entry points, callers, evidence).
	MaxListItems = 8
	// MaxExamples caps the example trace ids a runbook shows.
	MaxExamples = 3
)

// Text is a value that came from logs or another untrusted source: a
// service name, a message template, an entry point. It holds no control
// characters or line breaks and is already cut to a named length.
//
// Printed as is in a template ({{.Service}}) it becomes a Markdown code
// span, so nothing in it can form Markdown, links or HTML. Its methods give
// the same value escaped for other places: Plain for prose, Sh for a shell
// word, LogQL and PromQL for a string literal, SQL for a ClickHouse string
// literal, Path for a URL path segment.
type Text struct{ s string }

// NewText cleans s and cuts it to limit runes (0: MaxEvidenceLen).
func NewText(s string, limit int) Text {
	if limit <= 0 {
		limit = MaxEvidenceLen
	}
	return Text{s: cut(clean(s), limit)}
}

// clean makes s valid UTF-8 on one line: control, format (bidi) and
// separator characters become spaces, runs of spaces collapse.
func clean(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || unicode.IsSpace(r) ||
			unicode.Is(unicode.Zl, r) || unicode.Is(unicode.Zp, r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// cut shortens s to limit runes, ending it with "…" when cut.
func cut(s string, limit int) string {
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	n := 0
	for i := range s {
		if n == limit-1 {
			return strings.TrimRight(s[:i], " ") + "…"
		}
		n++
	}
	return s
}

// raw is the cleaned value without any escaping. Only Go code uses it;
// templates print Text through its escaping methods.
func (t Text) raw() string { return t.s }

// Empty reports whether the value is empty.
func (t Text) Empty() bool { return t.s == "" }

// String is the value as a Markdown code span; "(none)" when empty.
func (t Text) String() string {
	if t.s == "" {
		return "*(none)*"
	}
	return codeSpan(t.s)
}

// Code is the same as String.
func (t Text) Code() string { return t.String() }

// Plain is the value for Markdown prose and headings: every ASCII
// punctuation character is backslash-escaped, so it renders literally.
func (t Text) Plain() string { return mdEscape(t.s) }

// Sh is the value as one shell word, single-quoted unless it is plainly safe.
func (t Text) Sh() string { return shQuote(t.s) }

// LogQL is the value as a double-quoted LogQL string literal.
func (t Text) LogQL() string { return strconv.Quote(t.s) }

// PromQL is the value as a double-quoted PromQL string literal.
func (t Text) PromQL() string { return strconv.Quote(t.s) }

// SQL is the value as a single-quoted ClickHouse string literal.
func (t Text) SQL() string { return sqlQuote(t.s) }

// Path is the value escaped as one URL path segment.
func (t Text) Path() string { return url.PathEscape(t.s) }

// codeSpan wraps s in a backtick fence longer than any backtick run inside
// it (CommonMark), padded with spaces when s begins or ends with a backtick.
func codeSpan(s string) string {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// mdEscape makes s render literally in Markdown prose while staying
// readable as plain text: it backslash-escapes the characters that open
// code, emphasis, links, HTML, headings and tables (\ ` * _ [ ] < > # |).
// Without brackets and angle brackets no link or tag can form.
func mdEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("\\`*_[]<>#|", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// shQuote quotes s for a POSIX shell.
func shQuote(s string) string {
	if s != "" && !strings.HasPrefix(s, "-") && strings.IndexFunc(s, notShellSafe) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func notShellSafe(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return false
	}
	return !strings.ContainsRune("_-./:@%+,=", r)
}

// sqlQuote quotes s as a ClickHouse string literal.
func sqlQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `'`, `\'`)
	return "'" + r.Replace(s) + "'"
}

// maxArgLen caps a plain string given to a template function: our own
// commands and times, longer than log text may be.
const maxArgLen = 4096

// toText turns a template argument into Text: Text as is, a string
// cleaned and cut to maxArgLen, anything else through fmt and the
// evidence cap.
func toText(v any) Text {
	switch x := v.(type) {
	case Text:
		return x
	case string:
		return NewText(x, maxArgLen)
	case fmt.Stringer:
		return NewText(x.String(), MaxEvidenceLen)
	default:
		return NewText(fmt.Sprint(v), MaxEvidenceLen)
	}
}

// texts converts a list, keeping at most MaxListItems non-empty values.
func texts[S ~string](in []S, limit int) []Text {
	var out []Text
	for _, s := range in {
		t := NewText(string(s), limit)
		if t.Empty() {
			continue
		}
		if len(out) == MaxListItems {
			break
		}
		out = append(out, t)
	}
	return out
}
