package rootcause

import (
	"fmt"
	"slices"
	"time"

	"github.com/faultline/faultline/correlate"
	"github.com/faultline/faultline/schema"
)

// A deploy that raises no error of its own (the deploy_effect rule).
//
// A new version can break what it calls without failing itself: it sends
// a request its callee rejects, and the callee logs the error. The callee
// is then every failing trace's origin, and the deploy only a version
// change with nothing wrong to show. Two things tell the deploy: the
// callee's failing traces are calls from the deployed service (at least
// deployShare of those whose spans tell the caller), while its other
// callers' calls to it go through (or, when it has no other callers, it
// began failing within deployFollow of the version and was not itself
// deployed);
// and the callee's failures in calls from it came with the version: since
// it, at least riseFactor times as often as before it in the window (the
// callee's usual noise may be older). Then the
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
	// deployFollow is how soon after the version's first record a callee
	// that has no other callers must begin to fail: a rollout sends the
	// new version's calls at once.
	deployFollow = 5 * time.Minute
)

// originCaller is the service that called the operation in which the
// trace's origin happened at time at: the first service other than the
// origin's up its span's ancestors, or, when the origin's service left no
// span, the service whose call to it was nearest that time; "" when none
// tells.
func (p *period) originCaller(recs []schema.Record, sid schema.SpanID, svc string, at time.Time) string {
	// The trace's spans as indexSpans indexed them (addSelfTimes ran on
	// these records just before).
	tm := &p.timing
	span := func(id schema.SpanID) *schema.Record {
		if j, ok := tm.idx[id]; ok && id != "" {
			return &recs[tm.spans[j].rec]
		}
		return nil
	}
	if r := span(sid); r != nil {
		for hops := 0; r != nil && hops < len(recs); hops++ {
			if r.Service != svc && r.Service != "" {
				return r.Service
			}
			r = span(r.ParentSpanID)
		}
		return ""
	}
	// The origin's service left no span (it exports none): its caller is
	// the service whose client span to it was open when the error came.
	// The nearest call in time (clocks of pods differ), a failed one first:
	// the call the error answered failed.
	key := correlate.NameKey(svc)
	best, bestGap, bestFailed := "", time.Duration(-1), false
	for i := range recs {
		r := &recs[i]
		if r.Type != schema.TypeSpan || r.Service == svc || r.Service == "" {
			continue
		}
		if peer := PeerOf(r); peer == "" || correlate.NameKey(peer) != key {
			continue
		}
		gap := time.Duration(0)
		if at.Before(r.Time) {
			gap = r.Time.Sub(at)
		} else if at.After(r.End()) {
			gap = at.Sub(r.End())
		}
		failed := r.Status == schema.StatusError
		if bestGap < 0 || failed && !bestFailed || failed == bestFailed && gap < bestGap {
			best, bestGap, bestFailed = r.Service, gap, failed
		}
	}
	return best
}

// scoreDeployEffect moves the votes of a callee that fails only in the
// calls of a newly deployed caller to that caller.
func scoreDeployEffect(in *inputs, all []*scored) map[string]string {
	explained := map[string]string{} // callee -> deployed caller
	for _, d := range all {
		if d.kind != schema.KindBadDeploy || d.deployedAt.IsZero() {
			continue
		}
		for _, c := range all {
			if c == d || explained[c.service] != "" {
				continue
			}
			sv := in.traces.services[c.service]
			if sv == nil || sv.ownOrigins == 0 {
				continue
			}
			// Its failures in calls from the deployed service came with
			// the version: since it, at least riseFactor times as often
			// as before it (a callee's usual noise may be older).
			since := d.deployedAt.Add(-deployLead)
			first, before, from := sv.callsSince(d.service, since)
			if from == 0 || !correlate.Risen(float64(from)/minutesBetween(since, in.q.To),
				float64(before)/minutesBetween(in.q.From, since)) {
				continue
			}
			// Of the traces since whose spans tell who called (traces
			// exported without spans do not).
			known := 0
			for caller := range sv.callerTimes {
				_, _, n := sv.callsSince(caller, since)
				known += n
			}
			if known < minDeployTraces || float64(from) < deployShare*float64(known) {
				continue
			}
			others := otherCallers(in.traces, c.service, d.service)
			if len(others) == 0 && (c.kind == schema.KindBadDeploy || first.After(d.deployedAt.Add(deployFollow))) {
				// Nothing shows that its other callers are served, and
				// its failures did not follow the deploy at once, or it
				// was itself deployed.
				continue
			}
			var moved, movedN float64
			for i, g := range c.signals {
				if g.Name == "trace_origin" {
					frac := float64(from) / float64(known)
					moved, movedN = g.Value*frac, c.explains["trace_origin"]*frac
					c.signals[i].Value = round3(g.Value - moved)
					c.explains["trace_origin"] -= movedN
				}
			}
			if moved == 0 {
				continue
			}
			explained[c.service] = d.service
			d.ownExamples = mergeExamples(d.ownExamples, examples(sv.examples, 3), 3)
			served := "and no other service calls it"
			if len(others) > 0 {
				served = "while its calls from " + joinCut(others, 3) + " go through"
			}
			d.explain("deploy_effect", movedN)
			d.add("deploy_effect", moved, fmt.Sprintf("%s's failures in its calls came with it (the first at %s, %d since, %d in the window before): %d of its %d failing traces since whose caller is known are calls from %s, %s",
				c.service, first.UTC().Format(time.TimeOnly), from, before, from, known, d.service, served))
			c.evidence = append(c.evidence, fmt.Sprintf("its failures are in calls from %s, whose new version came first, %s [deploy_effect]", d.service, served))
		}
	}
	return explained
}

// callsSince counts the service's own failing traces in calls from
// caller before and since a moment, and when the first since failed.
func (sv *serviceVotes) callsSince(caller string, since time.Time) (first time.Time, before, after int) {
	for _, t := range sv.callerTimes[caller] {
		if t.Before(since) {
			before++
			continue
		}
		if after++; first.IsZero() || t.Before(first) {
			first = t
		}
	}
	return first, before, after
}

// minutesBetween is the length of [from, to) in minutes, at least one
// second's worth.
func minutesBetween(from, to time.Time) float64 {
	return max(to.Sub(from).Minutes(), 1.0/60)
}

// otherCallers are the services, but the one named, whose calls to svc
// in the window's traces did not all fail.
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
