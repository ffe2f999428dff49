package runbookgen

import (
	"regexp"
	"strings"
	"testing"
)

// FuzzEscapes checks the escapers on any input: a Text prints as exactly
// one code span on one line, Plain leaves no unescaped Markdown opener,
// and a shell word is either bare-safe or one well-formed quoted string.
func FuzzEscapes(f *testing.F) {
	for _, s := range []string{hostile, "", "`", "``a``", "a\\`b", "'", "é\u202e", "[x](y)", "<b>"} {
		f.Add(s)
	}
	escaped := regexp.MustCompile(`\\[[:punct:]]`)
	f.Fuzz(func(t *testing.T, s string) {
		txt := NewText(s, MaxTemplateLen)
		span := txt.String()
		if strings.ContainsAny(span, "\r\n") {
			t.Fatalf("line break in %q", span)
		}
		if !txt.Empty() && stripSpans(span) != "" {
			t.Fatalf("%q is not one code span: left %q", span, stripSpans(span))
		}
		plain := escaped.ReplaceAllString(txt.Plain(), "")
		if strings.ContainsAny(plain, "<>[]`*_#|\\") {
			t.Fatalf("Plain(%q) leaves an opener: %q", s, txt.Plain())
		}
		sh := txt.Sh()
		if strings.HasPrefix(sh, "'") {
			inner := strings.ReplaceAll(sh[1:len(sh)-1], `'\''`, "")
			if !strings.HasSuffix(sh, "'") || len(sh) < 2 || strings.Contains(inner, "'") {
				t.Fatalf("Sh(%q) = %s is not one quoted word", s, sh)
			}
		} else if strings.IndexFunc(sh, notShellSafe) >= 0 {
			t.Fatalf("Sh(%q) = %s is bare but unsafe", s, sh)
		}
	})
}
