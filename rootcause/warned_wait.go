package rootcause

import (
	"fmt"
	"strings"

	"github.com/faultline/faultline/correlate"
	"github.com/faultline/faultline/schema"
)

// ruleWarnedWait: a service without spans whose requests took longer by
// its own lines (logged_timing), and which warned in those requests of a
// dependency ("Retry 'llmGateway' recorded a failed retry attempt",
// "CircuitBreaker 'scorer' is OPEN", "retrying call to ledger"), spent
// that time waiting on the dependency, retrying it or falling back from
// it: it is not starved. The requests it slowed are the dependency's, in
// the share of them in which it named the dependency, when the dependency
// is a candidate of its own (its callers' spans or errors name it).
//
// No constant: the share moved is the share of the slower requests whose
// warnings name the dependency; when that is most of them, the service is
// no longer called starved. Scenario: testdata/warned_wait.txtar.
const ruleWarnedWait = "warned_wait"

// warnedKey is a service and a trace of it.
type warnedKey struct {
	svc   string
	trace schema.TraceID
}

// noteWarned notes the dependency a warning of a service without spans
// names in its trace.
func (p *period) noteWarned(r *schema.Record) {
	if r.TraceID == "" {
		return
	}
	_, dep := correlate.ClassifyTarget(r)
	if dep == "" || correlate.SameService(dep, r.Service) {
		return
	}
	if p.warned == nil {
		p.warned = map[warnedKey]string{}
	}
	k := warnedKey{r.Service, r.TraceID}
	if _, ok := p.warned[k]; !ok {
		p.warned[k] = dep
	}
}

// warnedWaits moves what logged_timing explains by a service to the
// dependency its warnings in the slower requests name.
func warnedWaits(in *inputs, all []*scored) {
	for _, s := range all {
		ex := s.explains["logged_timing"]
		if ex <= 0 || len(s.loggedSlow) == 0 || in.win.warned == nil {
			continue
		}
		named := map[string]int{}
		for id := range s.loggedSlow {
			if dep := in.win.warned[warnedKey{s.service, id}]; dep != "" {
				named[dep]++
			}
		}
		top := topKeys(named, 1)
		if len(top) == 0 {
			continue
		}
		dep, n := top[0], named[top[0]]
		var to *scored
		for _, c := range all {
			if c != s && correlate.SameService(c.service, dep) {
				to = c
				break
			}
		}
		if to == nil {
			continue
		}
		share := float64(n) / float64(len(s.loggedSlow))
		moved := ex * share
		s.explains["logged_timing"] -= moved
		to.explain(ruleWarnedWait, moved)
		if share >= 0.5 && s.timingKind == schema.KindCPUStarvation {
			s.timingKind = ""
			for i, e := range s.evidence {
				s.evidence[i] = strings.Replace(e, starvedWords, "", 1)
			}
		}
		s.evidence = append(s.evidence, fmt.Sprintf("in %d of its %d slower requests it warned of %s: that time was spent on %s, not starved [%s]",
			n, len(s.loggedSlow), dep, to.service, ruleWarnedWait))
		to.add(ruleWarnedWait, share, fmt.Sprintf("%s, which leaves no spans, took longer in %d requests and warned of it in %d of them (%q): it waited on %s",
			s.service, len(s.loggedSlow), n, dep, to.service))
	}
}
