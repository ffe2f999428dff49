package rootcause

import (
	"fmt"
	"math"
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
//
// A new version also acts through its answers: a classifier that starts
// giving a new label fails no call, yet its callers then act on it and
// fail elsewhere. So when the callee's failing traces are not its calls
// from the deployed service, they may instead have been served by the
// new version (it took part in them, after it first showed: rollouts):
// the same share, the same rise, when the traces that version served
// fail more often than those it served before (a binomial test, at least
// minDecades), and the callee's failures are of a kind a request can
// cause (a rejection, not a timeout or a resource running out).

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
			// Of the traces since whose spans tell who called (traces
			// exported without spans do not).
			known := 0
			for caller := range sv.callerTimes {
				_, _, n := sv.callsSince(caller, since)
				known += n
			}
			how := fmt.Sprintf("are calls from %s", d.service)
			if !cameWith(in, since, from, before) || known < minDeployTraces || float64(from) < deployShare*float64(known) {
				// Else its failing traces were served by the new version,
				// further up or down (it acts through its answers), the
				// traces that version served fail more than before it, and
				// the failures are of a kind a request can cause.
				dec, _, after := in.traces.rollouts.failMore(d.service, in.base)
				if dec < minDecades || !inputCaused(topKind(sv.kinds)) {
					continue
				}
				first, before, known, from = sv.servedSince(d.service, since)
				// Of its failures since, those its rate before the version
				// does not explain (its usual noise goes on).
				usual := float64(sv.ownBefore(since)) * minutesBetween(since, in.q.To) / minutesBetween(in.q.From, since)
				known = max(from, int(math.Round(float64(known)-usual)))
				if !cameWith(in, since, from, before) || from < minDeployTraces || float64(from) < deployShare*float64(known) {
					continue
				}
				how = fmt.Sprintf("were served by %s's new version, whose traces fail more since it (%d of %d; %.1f decades)",
					d.service, after[1], after[0], dec)
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
					if movedN > 0 {
						c.explains["trace_origin"] -= movedN // nil when its votes explain nothing new
					}
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
			d.add("deploy_effect", moved, fmt.Sprintf("%s's failures came with it (the first at %s, %d since, %d in the window before): %d of its %d failing traces since %s, %s",
				c.service, first.UTC().Format(time.TimeOnly), from, before, from, known, how, served))
			c.evidence = append(c.evidence, fmt.Sprintf("its failing traces %s; that version came first, %s [deploy_effect]", how, served))
		}
	}
	return explained
}

// cameWith reports whether a callee's failures since a deploy (from)
// came with it: at least riseFactor times as often as before it.
func cameWith(in *inputs, since time.Time, from, before int) bool {
	return from > 0 && correlate.Risen(float64(from)/minutesBetween(since, in.q.To),
		float64(before)/minutesBetween(in.q.From, since))
}

// topKind is the most frequent kind of a service's votes.
func topKind(kinds map[schema.Kind]int) schema.Kind {
	var best schema.Kind
	for _, k := range sortedKeys(kinds) {
		if best == "" || kinds[k] > kinds[best] {
			best = k
		}
	}
	return best
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

// rollouts are the services that told a version in the window, each
// with when its newest version was first seen (a rollout, when that
// version is new). Each trace a service served counts as before or after
// that moment, failing or not, so deploy_effect can ask whether the
// traces a new version served fail more than those the service served
// before it, in the window or, when it came early, in the baseline.
type rollouts struct {
	at map[string]time.Time
	// n is, per service, the traces it served [before, after] the new
	// version, and [before, after] those that failed.
	n map[string]*[2][2]int
	// buf is reused by served from trace to trace.
	buf *servedBy
}

// rolloutsOf finds, per service of the window that told a version, when
// its newest version was first seen.
func rolloutsOf(w *period) rollouts {
	r := rollouts{}
	for _, sp := range w.services {
		var at time.Time
		for _, vs := range sp.versions {
			if vs.first.After(at) {
				at = vs.first
			}
		}
		if at.IsZero() {
			continue
		}
		if r.at == nil {
			r.at, r.n, r.buf = map[string]time.Time{}, map[string]*[2][2]int{}, &servedBy{}
		}
		r.at[sp.name], r.n[sp.name] = at, &[2][2]int{}
	}
	return r
}

// servedBy is, for one trace, the rollouts' services that served it and
// whether after their new version (the trace's first record of the
// service no earlier than deployLead before it).
type servedBy struct {
	svcs  []string
	after []bool
}

// served is valid until the next call: its slices are reused.
func (r rollouts) served(recs []schema.Record) servedBy {
	if len(r.at) == 0 {
		return servedBy{}
	}
	out := *r.buf
	out.svcs, out.after = out.svcs[:0], out.after[:0]
	for i := range recs {
		rec := &recs[i]
		at, ok := r.at[rec.Service]
		if !ok {
			continue
		}
		after := !rec.Time.Before(at.Add(-deployLead))
		j := slices.Index(out.svcs, rec.Service)
		if j < 0 {
			out.svcs, out.after = append(out.svcs, rec.Service), append(out.after, after)
		} else if !after {
			out.after[j] = false // the trace reached it first before the version
		}
	}
	*r.buf = out
	return out
}

// count adds one trace the services of sb served.
func (r rollouts) count(sb servedBy, failed bool) {
	for i, svc := range sb.svcs {
		k := 0
		if sb.after[i] {
			k = 1
		}
		r.n[svc][0][k]++
		if failed {
			r.n[svc][1][k]++
		}
	}
}

// reached holds, per service, when each healthy trace of the window
// first reached it (unix nanoseconds): what count needs of a trace, kept
// until the window's versions, and so its rollouts, are known.
type reached struct {
	at map[string][]int64
	// svcs and first are add's scratch: the trace's services and when
	// each first wrote.
	svcs  []string
	first []int64
}

// add adds w traces alike: per service, its earliest record's time.
func (rc *reached) add(recs []schema.Record, w int) {
	rc.svcs, rc.first = rc.svcs[:0], rc.first[:0]
	for i := range recs {
		svc, t := recs[i].Service, recs[i].Time.UnixNano()
		if svc == "" {
			continue
		}
		if j := slices.Index(rc.svcs, svc); j >= 0 {
			rc.first[j] = min(rc.first[j], t)
			continue
		}
		rc.svcs, rc.first = append(rc.svcs, svc), append(rc.first, t)
	}
	if rc.at == nil {
		rc.at = map[string][]int64{}
	}
	for j, svc := range rc.svcs {
		for range w {
			rc.at[svc] = append(rc.at[svc], rc.first[j])
		}
	}
}

// countReached counts, as count does, the healthy traces of rc.
func (r rollouts) countReached(rc *reached) {
	for svc, at := range r.at {
		from := at.Add(-deployLead).UnixNano()
		for _, t := range rc.at[svc] {
			k := 0
			if t >= from {
				k = 1
			}
			r.n[svc][0][k]++
		}
	}
}

// newer are the services that served the trace on their new version.
func (sb servedBy) newer() []string {
	var out []string
	for i, svc := range sb.svcs {
		if sb.after[i] {
			out = append(out, svc)
		}
	}
	return out
}

// failMore is how surely the traces svc served on its new version fail
// more often than those it served before, in the window and in the
// baseline (b; a trace with an error record counts as failed there):
// decades, as call_timing's tests, of the binomial tail of the failures
// after at the rate before, with one failure and one success added to
// the traces before so that none before is weak evidence, not certainty.
func (r rollouts) failMore(svc string, b *period) (decades float64, before, after [2]int) {
	n := r.n[svc]
	if n == nil {
		return 0, before, after
	}
	before, after = [2]int{n[0][0], n[1][0]}, [2]int{n[0][1], n[1][1]}
	if bs := b.served[svc]; bs != nil {
		before[0], before[1] = before[0]+bs[0], before[1]+bs[1]
	}
	p := float64(before[1]+1) / float64(before[0]+2)
	t := tally{slow: after[1], expect: p * float64(after[0])}
	return t.decades(after[0]), before, after
}

// servedSince counts the service's own failing traces since a moment, and
// of them the ones svc served on its new version, and when the first of
// those failed; and before it, those svc served.
func (sv *serviceVotes) servedSince(svc string, since time.Time) (first time.Time, before, all, served int) {
	for _, o := range sv.owns {
		if o.at.Before(since) {
			if slices.Contains(o.servedAny, svc) {
				before++
			}
			continue
		}
		all++
		if slices.Contains(o.servedNew, svc) {
			if served++; first.IsZero() || o.at.Before(first) {
				first = o.at
			}
		}
	}
	return first, before, all, served
}

// ownBefore counts the service's own failing traces before a moment.
func (sv *serviceVotes) ownBefore(at time.Time) int {
	n := 0
	for _, o := range sv.owns {
		if o.at.Before(at) {
			n++
		}
	}
	return n
}

// inputCaused reports whether a failure kind is one a caller's request
// can cause: a rejected, unknown or unauthorised input, a poison message;
// not the callee's own trouble (timeouts, refusals, resources).
func inputCaused(k schema.Kind) bool {
	switch k {
	case schema.KindDeterministic, schema.KindNotFound, schema.KindAuth, schema.KindPoisonMessage, schema.KindUnknown, "":
		return true
	}
	return false
}
