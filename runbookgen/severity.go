package runbookgen

import (
	"fmt"
	"strings"

	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/schema"
)

// Severities and their MTTR targets (DOMAIN.md).
const (
	SevP1 = "P1" // customer impact, revenue: < 15 minutes
	SevP2 = "P2" // degraded experience, a workaround exists: < 1 hour
	SevP3 = "P3" // minor, not customer-facing: < 4 hours
)

// Thresholds on the share of the window's traces a candidate fails.
const (
	// majorShare alone makes P1.
	majorShare = 0.25
	// userShare with a user-facing entry point makes P1.
	userShare = 0.05
	// lossShare with a kind that loses data makes P1.
	lossShare = 0.01
)

// MTTRTarget gives the MTTR target of a severity ("15m", "1h", "4h").
func MTTRTarget(sev string) string {
	switch sev {
	case SevP1:
		return "15m"
	case SevP2:
		return "1h"
	default:
		return "4h"
	}
}

// LosesData reports whether failures of this kind lose work unless someone
// acts: messages parked in a dead letter queue or dropped after retries.
func LosesData(k schema.Kind) bool {
	return k == schema.KindPoisonMessage || k == schema.KindRetryExhausted
}

// Slowness reports whether the evidence of this kind is slowness rather
// than errors: its candidates may have no failing trace at all, and their
// runbooks look for slow spans, not error lines.
func Slowness(k schema.Kind) bool {
	switch k {
	case schema.KindLatency, schema.KindNetworkDelay, schema.KindCPUStarvation:
		return true
	}
	return false
}

// userFacing returns the first entry point that looks like a request a user
// waits on (anything not named like background work), or "".
func userFacing(entries []string) string {
	// Words that mark an entry point no user waits on.
	backgroundWords := [...]string{"cron", "job", "batch", "worker", "consumer", "queue",
		"scheduler", "listener", "poll", "kafka", "sqs", "amqp", "pubsub", "task"}
	for _, e := range entries {
		low := strings.ToLower(e)
		bg := false
		for _, w := range backgroundWords {
			if strings.Contains(low, w) {
				bg = true
				break
			}
		}
		if !bg {
			return e
		}
	}
	return ""
}

// severity decides P1/P2/P3 from the evidence and says why in one
// sentence, writing the entry point with quote (a Markdown code span for
// the runbook, plain quotes for the JSON document).
func severity(rep *rootcause.Report, c *rootcause.Candidate, quote func(Text) string) (sev, reason string) {
	share := 0.0
	if rep.Traces > 0 {
		share = float64(c.Traces) / float64(rep.Traces)
	}
	user := userFacing(c.EntryPoints)
	loss := LosesData(c.Kind)
	switch {
	case share >= majorShare:
		sev = SevP1
	case user != "" && share >= userShare, loss && share >= lossShare:
		sev = SevP1
	case user != "" || loss || share >= userShare:
		sev = SevP2
	default:
		sev = SevP3
	}
	var why []string
	fails, fail := "fails", "fail"
	if c.Traces == 0 && Slowness(c.Kind) {
		why = append(why, fmt.Sprintf("no trace fails here (0 of %d): the evidence is slowness, not errors", rep.Traces))
		fails, fail = "is slow", "are slow"
	} else {
		why = append(why, fmt.Sprintf("%s of the window's traces fail here (%d of %d)",
			pct(share), c.Traces, rep.Traces))
	}
	if user != "" {
		why = append(why, "a user-facing entry point "+fails+" ("+quote(NewText(user, MaxEntryPointLen))+")")
	} else if len(c.EntryPoints) > 0 {
		why = append(why, "only background entry points "+fail)
	} else {
		why = append(why, "no entry point was recorded")
	}
	if loss {
		why = append(why, "this kind loses data (messages parked in a DLQ or dropped) until someone acts")
	}
	return sev, sev + " because " + strings.Join(why, "; ") + "."
}

// pct formats a share as a percentage with one decimal.
func pct(share float64) string { return fmt.Sprintf("%.1f%%", share*100) }
