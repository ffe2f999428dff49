package ingest

import (
	"strings"
	"testing"
)

// bareLevelBefore is bareLevel as it was before isUpper and FieldsSeq
// (allocating), the reference its replacement must agree with.
func bareLevelBefore(line string) string {
	if len(line) > 160 {
		line = line[:160]
	}
	for i, tok := range strings.Fields(line) {
		if i >= 6 {
			break
		}
		if i == 0 && len(tok) == 5 && strings.ContainsRune("IWEF", rune(tok[0])) && isDigits(tok[1:]) {
			return tok[:1]
		}
		t := strings.Trim(tok, "[]()<>:|,;-")
		if len(t) < 3 || strings.ToUpper(t) != t {
			continue
		}
		if _, ok := levelWord(strings.ToLower(t)); ok {
			return t
		}
	}
	return ""
}

var bareLevelCases = []string{
	"", "ERROR something", "[WARN] x", "2024-01-01 12:00:00 ERROR db", "E1130 12:00:00.000 klog", "GET /x 200 INFO",
	"a b c d e f ERROR", "a b c d e ERROR", "Error lower", "ÉRROR", "\xffERROR", "ERR\xff", "WARNİNG", "ＥＲＲＯＲ",
	"FATAL: boom", "(CRITICAL)", "notice NOTICE", "\u00a0ERROR\u2003x", strings.Repeat("x", 158) + " ERROR",
	"DEBUG\tTRACE", "K\u212aLVIN ERROR", "\ufffdERROR", "WARNING:", "--ERROR--",
}

func TestBareLevelUnchanged(t *testing.T) {
	for _, c := range bareLevelCases {
		if got, want := bareLevel(c), bareLevelBefore(c); got != want {
			t.Errorf("bareLevel(%q) = %q, was %q", c, got, want)
		}
	}
}

func FuzzBareLevel(f *testing.F) {
	for _, c := range bareLevelCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := bareLevel(s), bareLevelBefore(s); got != want {
			t.Fatalf("bareLevel(%q) = %q, was %q", s, got, want)
		}
	})
}
