package rootcause

import (
	"regexp"
	"strings"
	"testing"
)

// TestExplainedInShares: the explained line gives each part as a share of
// the window's anomalous requests; its weighed counts used to read as
// counts of traces ("1.0 failing traces that begin here").
func TestExplainedInShares(t *testing.T) {
	got := explainedParts(map[string]float64{"trace_origin": 1, "call_timing": 0.4, "behaviour": 0.01}, 2.8)
	want := "traces whose execution changed <1%, requests its timing slowed 14%, failing traces that begin here 36%"
	if got != want {
		t.Errorf("explainedParts = %q, want %q", got, want)
	}
	if regexp.MustCompile(`\d\.\d+ (failing )?(traces|requests)`).MatchString(got) {
		t.Errorf("a weighed count printed as a count: %q", got)
	}
}

// TestPluralInEvidence: a count of one takes the singular.
func TestPluralInEvidence(t *testing.T) {
	for n, want := range map[int]string{0: "0 signatures", 1: "1 signature", 2: "2 signatures"} {
		if got := plural(n, "signature"); got != want {
			t.Errorf("plural(%d) = %q, want %q", n, got, want)
		}
	}
	if got := plural(1, "out-of-memory line"); !strings.HasSuffix(got, "line") {
		t.Errorf("plural(1) = %q", got)
	}
}
