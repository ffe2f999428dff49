package runbookgen

import (
	"strings"
	"testing"
)

func TestClean(t *testing.T) {
	cases := []struct{ in, want string }{
		{"a\nb\r\n\tc", "a b c"},
		{"  lead and trail  ", "lead and trail"},
		{"bidi\u202eevil\u2028sep", "bidi evil sep"},
		{"bad\xffutf8", "bad\uFFFDutf8"},
		{"", ""},
	}
	for _, c := range cases {
		if got := clean(c.in); got != c.want {
			t.Errorf("clean(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestCut(t *testing.T) {
	if got := NewText(strings.Repeat("é", 100), 10).raw(); got != strings.Repeat("é", 9)+"…" {
		t.Errorf("cut to 10 runes: %q", got)
	}
	if got := NewText("short", 10).raw(); got != "short" {
		t.Errorf("short value changed: %q", got)
	}
}

func TestCodeSpan(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain", "`plain`"},
		{"a`b", "``a`b``"},
		{"``x", "``` ``x ```"},
		{"end`", "`` end` ``"},
	}
	for _, c := range cases {
		if got := codeSpan(c.in); got != c.want {
			t.Errorf("codeSpan(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestMdEscape(t *testing.T) {
	cases := []struct{ in, want string }{
		{"[x](javascript:alert(1))", `\[x\](javascript:alert(1))`},
		{"<script>", `\<script\>`},
		{"# heading", `\# heading`},
		{"a | b * c _ d", `a \| b \* c \_ d`},
		{"back\\slash `tick`", "back\\\\slash \\`tick\\`"},
	}
	for _, c := range cases {
		if got := mdEscape(c.in); got != c.want {
			t.Errorf("mdEscape(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestShQuote(t *testing.T) {
	cases := []struct{ in, want string }{
		{"payment", "payment"},
		{"deploy/payment-v2", "deploy/payment-v2"},
		{"a b", "'a b'"},
		{"it's", `'it'\''s'`},
		{"$(rm -rf /)", "'$(rm -rf /)'"},
		{"`id`", "'`id`'"},
		{"--all", "'--all'"},
		{"", "''"},
	}
	for _, c := range cases {
		if got := shQuote(c.in); got != c.want {
			t.Errorf("shQuote(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestSQLAndLogQLQuote(t *testing.T) {
	if got := sqlQuote(`o'k\`); got != `'o\'k\\'` {
		t.Errorf("sqlQuote = %s", got)
	}
	if got := NewText(`a"b\c`, 0).LogQL(); got != `"a\"b\\c"` {
		t.Errorf("LogQL = %s", got)
	}
}
