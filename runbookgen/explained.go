package runbookgen

import (
	"fmt"
	"strings"

	"github.com/faultline/faultline/rootcause"
)

// Explained is the share of the window's anomalous requests a candidate
// explains, in whole percent, as its evidence line tagged [explained]
// says ("explains 92% of the window's anomalous requests, …"); ok is
// false for a candidate ranked on its symptoms alone, which explains
// nothing measured.
//
// It is what the CLI, the web UI, Slack and the runbooks show as a
// candidate's headline, never above 100%. Candidate.Score, which ranks
// the candidates, is that share plus small terms of the candidate's own
// symptoms (rootcause/doc.go, "Ranking"), so it can exceed 1 ("score
// 1.02"), which reads as a probability over 100%; the JSON documents keep
// it as it is.
//
// The line is read rather than the signals summed: a timing rule's signal
// is a symptom term when it explains no request (logged_timing's network
// wait), and the line is the number the evidence shows below the headline.
func Explained(c *rootcause.Candidate) (pct int, ok bool) {
	for _, ev := range c.Evidence {
		if !strings.HasPrefix(ev, "explains ") || !strings.HasSuffix(ev, " [explained]") {
			continue
		}
		if _, err := fmt.Sscanf(ev, "explains %d%%", &pct); err == nil && pct >= 0 && pct <= 100 {
			return pct, true
		}
	}
	return 0, false
}

// ExplainedWords is Explained in words, for a headline: "explains 92%",
// "explains <1%" (a share that rounds to 0), or "symptoms only".
func ExplainedWords(c *rootcause.Candidate) string {
	pct, ok := Explained(c)
	switch {
	case !ok:
		return "symptoms only"
	case pct == 0:
		return "explains <1%"
	}
	return fmt.Sprintf("explains %d%%", pct)
}
