package correlate

import (
	"fmt"
	"strings"

	"github.com/faultline/faultline/schema"
)

// ruleBreakerKind gives the suspect behind an open breaker the kind of
// failure that tripped the breaker, not the breaker's: a breaker that
// opened because its dependency timed out is the dependency's timeout (a
// runbook for a slow dependency, not one for a breaker), and one that
// opened on the dependency's refused connections or on its own errors is
// that.
//
// Condition: the suspect's kind is a fast failure (circuit-open,
// bulkhead-full). Its kind becomes the one most walks of the tripping
// traces that end at the suspect end in; when none does and the suspect
// is the breaker's dependency, the one most of the failures the lookbacks
// found (the dependency's own, its callers' calls to it) tell of, a
// caller's timeout being the dependency's (dependency-timeout). A fast
// failure or a kind that tells nothing (unknown, transient) is no kind.
//
// Constants: none.
// Test: TestRules/breaker_kind (storeBreakerKind).
const ruleBreakerKind = "breaker_kind"

func kindOfTrips(res *Result, h *hop) {
	if !isFastFailure(res.Suspect.Kind) {
		return
	}
	var c kindCount
	for _, w := range h.tr.walks {
		if sameService(w.suspect, res.Suspect.Service) {
			c.add(w.kind)
		}
	}
	what := "of the walks of the traces that tripped the breaker end at " + res.Suspect.Service + " in"
	if c.best == "" && sameService(res.Suspect.Service, h.lead.dep) {
		for _, hit := range h.tr.hits {
			k := hit.kind
			if k == schema.KindTimeout && !sameService(hit.from, h.lead.dep) {
				k = schema.KindDependencyTimeout // a caller's timeout on it
			}
			c.add(k)
		}
		what = "of the failures of and calls to " + h.lead.dep + " before the breaker opened tell of"
	}
	if c.best == "" {
		return
	}
	if c.n[c.best] == 1 {
		what = strings.NewReplacer(" end at ", " ends at ", " tell of", " tells of").Replace(what)
	}
	res.Suspect.Reason += fmt.Sprintf("; %d %s %s", c.n[c.best], what, c.best) + ruleTag(ruleBreakerKind)
	res.Suspect.Kind = c.best
}

// kindCount counts kinds that tell what failed; best is the most
// frequent, the first counted on a tie.
type kindCount struct {
	n    map[schema.Kind]int
	best schema.Kind
}

func (c *kindCount) add(k schema.Kind) {
	if k == "" || isFastFailure(k) || k.Vague() || k == schema.KindTransient {
		return
	}
	if c.n == nil {
		c.n = map[schema.Kind]int{}
	}
	c.n[k]++
	if c.best == "" || c.n[k] > c.n[c.best] {
		c.best = k
	}
}
