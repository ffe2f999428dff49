package rootcause

import (
	"fmt"
	"slices"
	"time"

	"github.com/faultline/faultline/schema"
)

// A deploy that raises no error of its own (the deploy_effect rule).
//
// A new version can break what it calls without failing itself: it sends
// a request its callee rejects, and the callee logs the error. The callee
// is then every failing trace's origin, and the deploy only a version
// change with nothing wrong to show. Two things tell the deploy: the
// callee's failing traces are calls from the deployed service (at least
// deployShare of those whose spans tell the caller), while its other callers' calls to it go through;
// and the version was first seen before the callee's first error. Then the
// callee's trace_origin share moves to the deployed service, and its
// downstream penalty for calling a service that failed is lifted.

// Constants of deploy_effect.
const (
	deployShare = 0.8
	// deployLead is how long before the version's first record a callee's
	// first error may still be (clocks of different pods differ).
	deployLead = 2 * time.Second
	// minDeployTraces is how many failing traces with a known caller the
	// callee needs.
	minDeployTraces = 5
)

// originCaller is the service that called the operation in which the
// trace's origin happened: the first service other than the origin's up
// its span's ancestors, or "".
func originCaller(recs []schema.Record, sid schema.SpanID, svc string) string {
	if sid == "" {
		return ""
	}
	byID := make(map[schema.SpanID]*schema.Record, len(recs))
	for i := range recs {
		if r := &recs[i]; r.Type == schema.TypeSpan && r.SpanID != "" {
			byID[r.SpanID] = r
		}
	}
	for hops, r := 0, byID[sid]; r != nil && hops < len(recs); hops++ {
		if r.Service != svc && r.Service != "" {
			return r.Service
		}
		r = byID[r.ParentSpanID]
	}
	return ""
}

// scoreDeployEffect moves the votes of a callee that fails only in the
// calls of a newly deployed caller to that caller.
func scoreDeployEffect(in *inputs, all []*scored) map[string]string {
	explained := map[string]string{} // callee -> deployed caller
	by := map[string]*scored{}
	for _, s := range all {
		by[s.service] = s
	}
	for _, d := range all {
		if d.kind != schema.KindBadDeploy || d.deployedAt.IsZero() {
			continue
		}
		for _, c := range all {
			if c == d || explained[c.service] != "" {
				continue
			}
			sv := in.traces.services[c.service]
			if sv == nil || sv.ownOrigins == 0 || sv.first.Before(d.deployedAt.Add(-deployLead)) {
				continue
			}
			// Of the traces whose spans tell who called (traces exported
			// without spans do not).
			known := 0
			for _, n := range sv.originCallers {
				known += n
			}
			from := sv.originCallers[d.service]
			if known < minDeployTraces || float64(from) < deployShare*float64(known) {
				continue
			}
			others := otherCallers(in.traces, c.service, d.service)
			if len(others) == 0 {
				continue // nothing shows that its other callers are served
			}
			var moved float64
			for i, g := range c.signals {
				if g.Name == "trace_origin" {
					moved = g.Value * float64(from) / float64(known)
					c.signals[i].Value = round3(g.Value - moved)
				}
			}
			if moved == 0 {
				continue
			}
			explained[c.service] = d.service
			d.ownExamples = mergeExamples(d.ownExamples, examples(sv.examples, 3), 3)
			d.add("deploy_effect", moved, fmt.Sprintf("%s's errors began after it (at %s): %d of its %d failing traces whose caller is known are calls from %s, while its calls from %s go through",
				c.service, sv.first.UTC().Format(time.TimeOnly), from, known, d.service, joinCut(others, 3)))
			c.evidence = append(c.evidence, fmt.Sprintf("its failures are in calls from %s, whose new version came first; its other callers' calls go through [deploy_effect]", d.service))
		}
	}
	return explained
}

// otherCallers are the services other than but that call svc in the
// window's traces.
func otherCallers(tv *traceVotes, svc, but string) []string {
	var out []string
	for k, e := range tv.edges {
		if k[1] == svc && k[0] != but && k[0] != svc && e.Calls > e.Errors {
			out = append(out, k[0])
		}
	}
	slices.Sort(out)
	return out
}
