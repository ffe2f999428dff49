package rootcause

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/faultline/faultline/schema"
)

// Span timing on the call graph (the call_timing detector).
//
// A call between two services leaves two spans: the caller's client span
// and, as its only child, the callee's server span. The caller's span less
// the callee's is the call's wait: the network both ways, queueing before
// the callee's handler ran, connection setup, the caller's own client-side
// work. A span with no child in another service is the service's own work
// (its duration less its children's), unless one of its children failed:
// the time between a failed call and its retry is waiting, not work, and a
// retrying caller is not a starved one. A client span to a peer that left no
// span at all (a database, a third-party API) is that peer's whole time.
//
// Each period keeps, per call edge, the waits of its calls and, per
// operation, the own work of its spans. A window's sample is slow when it
// exceeds slowFactor times the baseline's 95th percentile of the same edge
// or operation plus slowFloorNs, or twice its median (shift); what chance
// gives is read from the baseline's own samples (exceedance). How far the
// share of slow samples rises above that, pooled over a service's edges or
// operations, is the shift; it counts when the binomial tail reaches
// minDecades, in full from fullDecades. Comparing each edge and operation
// with itself cancels the mix of calls; comparing shares of the whole
// distribution, not one mean, catches a tail that grew as well as a
// median that moved.
//
// Localisation, in general terms of the graph:
//   - calls into a service waited longer while its own work did not slow:
//     its network or its pod (network-delay); when its calls out waited
//     longer too, the requests they slowed are its as well;
//   - its own work slowed at all (and with it, usually, the waits of calls
//     into and out of it, since a starved process queues requests and sends
//     late): it is starved of CPU (cpu-starvation), however much more the
//     waits grew: a slow wire adds to waits, never to a span's own work.
//     Its operations are tested pooled and each alone, the one less the
//     decades of trying them all (Bonferroni): one operation that slowed
//     among many that did not is not drowned by their samples;
//   - one caller's calls into a service that waited longer, while the
//     service's other callers' did not, are the caller's, and so are a
//     sole caller's when calls into it waited longer too or its own work
//     slowed (into a callee with spans, in as large a share of its spans,
//     its excess, as the calls waited longer), or its calls to another
//     callee waited longer where that callee's other callers' did not (its
//     own wire, which every call it makes crosses), unless the calls fail
//     (a failing callee explains both);
//   - a caller whose calls to most of its callees that leave spans waited
//     longer is the reason for those waits (its own starvation or its
//     egress), and the waits are taken off its callees; so is one whose
//     calls in waited longer and whose calls out all did (slow on the wire
//     both ways). Calls to a callee without spans are its whole time and
//     count only as callerSide says;
//   - a peer without spans whose callers' calls to it slowed is slow itself.

// Constants of call_timing.
const (
	// slowFloorNs is added to slowFactor (tuning.go) times the baseline's
	// p95: timer noise of tiny spans (0.2 ms). minDecades and fullDecades
	// are in tuning.go too.
	slowFloorNs = 200e3
	// broadCallees is how many of a caller's callees must wait longer, at
	// least, for the waits to be the caller's (and at least half of them).
	broadCallees = 2
	wCallTiming  = 2.5
	// minFailShare is the share of an edge's calls that must fail (and
	// twice the baseline's) for the calls to count as failing.
	minFailShare = 0.05
	maxTimingEx  = 3 // example traces kept per edge or operation
)

// timingStat is the samples of one call edge or one operation in a period.
type timingStat struct {
	samples
	// ids are the samples' traces, one per sample (0 when a sample's
	// trace is unknown), in tab; the window only.
	ids []traceRef
	tab *traceTable
	// failed counts the calls that failed (an error status on the span
	// of the call, or on the callee's span).
	failed int
	// slowest are the window's slowest samples' traces: examples.
	slowest []timedTrace
}

// traceRef is a trace's place in a traceTable, from 1; 0 is no trace.
type traceRef uint32

// traceTable names the traces of a period's timing samples: a sample keeps
// its trace's place (4 bytes), not its id (a string's 16), and a window of
// 500k records has a million samples. A trace's samples mostly come one
// after another (its records are learnt together), and take one place;
// one that comes again takes another, the same id.
type traceTable struct{ ids []schema.TraceID }

func (tt *traceTable) ref(id schema.TraceID) traceRef {
	if id == "" {
		return 0
	}
	if n := len(tt.ids); n > 0 && tt.ids[n-1] == id {
		return traceRef(n)
	}
	tt.ids = append(tt.ids, id)
	return traceRef(len(tt.ids))
}

// id is r's trace; "" for 0.
func (tt *traceTable) id(r traceRef) schema.TraceID {
	if r == 0 {
		return ""
	}
	return tt.ids[r-1]
}

type timedTrace struct {
	ns float64
	id schema.TraceID
}

// addN adds the sample as n traces alike give it: once, of weight n.
func (t *timingStat) addN(ns float64, id schema.TraceID, keep bool, n int) {
	if n <= 0 {
		return
	}
	t.samples.add(ns, n)
	if !keep {
		return
	}
	if t.tab == nil {
		t.tab = &traceTable{}
	}
	t.ids = append(t.ids, t.tab.ref(id))
	if id == "" {
		return
	}
	if len(t.slowest) < maxTimingEx {
		t.slowest = append(t.slowest, timedTrace{ns, id})
		return
	}
	// Replace the fastest of the kept ones, when this one is slower.
	j := 0
	for k := range t.slowest {
		if t.slowest[k].ns < t.slowest[j].ns {
			j = k
		}
	}
	if t.slowest[j].ns < ns {
		t.slowest[j] = timedTrace{ns, id}
	}
}

// addLogged is addN up to maxLogged samples in all: what lines state is
// kept of the first maxLogged.
func (t *timingStat) addLogged(ns float64, id schema.TraceID, keep bool, n int) {
	t.addN(ns, id, keep, min(n, maxLogged-t.count()))
}

func (t *timingStat) add(ns float64, id schema.TraceID, keep bool) { t.addN(ns, id, keep, 1) }

// samples are durations (ns), each standing for as many alike as its
// weight: a sampled trace (sample.go) is learnt once with its weight, not
// as many times over, so that a window sampled 1 in k holds its samples'
// durations once. Counts and quantiles are those of the samples repeated
// as many times as their weights.
type samples struct {
	ns []float64
	// wt are the weights, nil while every one is 1.
	wt []int32
	// n is the weights' sum.
	n int
}

// add adds v of weight w (w > 0).
func (s *samples) add(v float64, w int) {
	if w != 1 && s.wt == nil {
		s.wt = make([]int32, len(s.ns), cap(s.ns))
		for i := range s.wt {
			s.wt[i] = 1
		}
	}
	s.ns = append(s.ns, v)
	if s.wt != nil {
		s.wt = append(s.wt, int32(w))
	}
	s.n += w
}

// count is how many samples s stands for.
func (s *samples) count() int { return s.n }

// weight is sample i's.
func (s *samples) weight(i int) int {
	if s.wt == nil {
		return 1
	}
	return int(s.wt[i])
}

// quantile is quantile of the samples repeated as their weights say
// (sorting s, when it is not, with sortAlong).
func (s *samples) quantile(q float64) float64 {
	if s.n == 0 {
		return 0
	}
	if !slices.IsSorted(s.ns) {
		s.sortAlong(nil)
	}
	i := min(int(q*float64(s.n)), s.n-1)
	if s.wt == nil {
		return s.ns[i]
	}
	for j, w := range s.wt {
		if i < int(w) {
			return s.ns[j]
		}
		i -= int(w)
	}
	return s.ns[len(s.ns)-1]
}

// sortAlong sorts the samples by duration, their weights and ids (one
// per sample, or nil) with them.
func (s *samples) sortAlong(ids []traceRef) {
	if s.wt == nil && ids == nil {
		slices.Sort(s.ns)
		return
	}
	sort.Sort(byDuration{s, ids})
}

// byDuration sorts samples, and their weights and traces with them.
type byDuration struct {
	*samples
	ids []traceRef
}

func (d byDuration) Len() int           { return len(d.ns) }
func (d byDuration) Less(i, j int) bool { return d.ns[i] < d.ns[j] }
func (d byDuration) Swap(i, j int) {
	d.ns[i], d.ns[j] = d.ns[j], d.ns[i]
	if d.wt != nil {
		d.wt[i], d.wt[j] = d.wt[j], d.wt[i]
	}
	if d.ids != nil {
		d.ids[i], d.ids[j] = d.ids[j], d.ids[i]
	}
}

// timing is one period's call edges and operations.
type timing struct {
	edges map[[2]string]*timingStat // caller, callee -> waits
	// opaque marks callees known only from their callers' spans.
	opaque map[string]bool
	work   map[opKey]*timingStat // own work per operation
	keep   bool                  // keep example traces (the window)
	// traces names the kept samples' traces (timingStat.ids).
	traces traceTable
	// durs is each window trace's duration: its longest span, the
	// request as one service's clock timed it. Not its first span's start
	// to its last span's end: services' clocks differ (by hundreds of
	// milliseconds on real hosts), and an asynchronous hand-over's queue
	// wait is no part of the work either side did, so that spread made a
	// job's worker that took three times as long look 2% slower.
	durs map[schema.TraceID]float64
	// idx and spans are addCallTimes' scratch, reused per trace.
	idx   map[schema.SpanID]int32
	spans []spanKids
}

// spanKids is one span of a trace and what its children add up to.
type spanKids struct {
	rec, only        int32 // its record; its child's, when it has one
	n, cross, failed int   // children; those in another service; those that failed
	dur              float64
}

func (tm *timing) stat(m map[[2]string]*timingStat, k [2]string) *timingStat {
	s := m[k]
	if s == nil {
		s = &timingStat{tab: &tm.traces}
		m[k] = s
	}
	return s
}

// indexSpans indexes one trace's spans, in a map and a slice reused from
// trace to trace: each span's record and what its children add up to.
func (p *period) indexSpans(recs []schema.Record) {
	tm := &p.timing
	if tm.edges == nil {
		tm.edges, tm.opaque, tm.work = map[[2]string]*timingStat{}, map[string]bool{}, map[opKey]*timingStat{}
		tm.idx = map[schema.SpanID]int32{}
	}
	clear(tm.idx)
	tm.spans = tm.spans[:0]
	for i := range recs {
		if r := &recs[i]; r.Type == schema.TypeSpan && r.SpanID != "" {
			tm.idx[r.SpanID] = int32(len(tm.spans))
			tm.spans = append(tm.spans, spanKids{rec: int32(i), only: -1})
		}
	}
	for i := range recs {
		r := &recs[i]
		if r.Type != schema.TypeSpan || r.ParentSpanID == "" {
			continue
		}
		j, ok := tm.idx[r.ParentSpanID]
		if !ok {
			continue
		}
		k := &tm.spans[j]
		k.n++
		k.dur += float64(r.Duration)
		k.only = int32(i)
		if r.IsError() {
			k.failed++
		}
		if recs[k.rec].Service != r.Service {
			k.cross++
		}
	}
}

// addCallTimes accounts the call waits and own work of one trace's spans,
// indexed by indexSpans, w times.
func (p *period) addCallTimes(recs []schema.Record, w int) {
	tm := &p.timing
	if len(tm.spans) == 0 {
		return
	}
	id := recs[0].TraceID
	longest := time.Duration(-1) // the trace's longest span (window)
	for i := range recs {
		r := &recs[i]
		if r.Type != schema.TypeSpan || r.Service == "" {
			continue
		}
		if tm.keep {
			longest = max(longest, r.Duration)
		}
		var k *spanKids
		if j, ok := tm.idx[r.SpanID]; ok && tm.spans[j].n > 0 {
			k = &tm.spans[j]
		}
		switch {
		case k == nil:
			if peer := p.peerName(PeerOf(r)); peer != "" && peer != r.Service {
				if ps := p.services[peer]; ps != nil && ps.spans {
					// The peer leaves spans, but not under this call (lost,
					// or never reached): the call's time is no wait of an
					// edge, and no own work of its caller.
					continue
				}
				// A client span to a peer that left no span: all its time
				// is the peer's, as its callers see it.
				tm.opaque[peer] = true
				st := tm.stat(tm.edges, [2]string{r.Service, peer})
				st.addN(float64(r.Duration), id, tm.keep, w)
				if r.IsError() {
					st.failed += w
				}
				continue
			}
			if p.peerName(PeerOf(r)) != "" {
				// A call to a dependency named as the service itself (its
				// database "orders" of service orders): a call, whose
				// time is no own work, and no edge to the service.
				continue
			}
			tm.own(r, float64(r.Duration), id, w)
		case k.cross == 0 && k.failed == 0:
			tm.own(r, max(float64(r.Duration)-k.dur, 0), id, w)
		case k.cross == 0:
			// Some of its calls failed: the time between them is spent
			// waiting to retry, not working.
		case k.n == 1:
			c := &recs[k.only]
			if isConsumer(c) || c.Duration > r.Duration {
				continue // an asynchronous hand-over, not a call waited for
			}
			st := tm.stat(tm.edges, [2]string{r.Service, c.Service})
			st.addN(float64(r.Duration-c.Duration), id, tm.keep, w)
			if r.IsError() || c.IsError() {
				st.failed += w
			}
		}
	}
	if longest >= 0 {
		if tm.durs == nil {
			tm.durs = map[schema.TraceID]float64{}
		}
		tm.durs[id] = float64(longest)
	}
}

func (tm *timing) own(r *schema.Record, ns float64, id schema.TraceID, w int) {
	k := opKey{r.Service, r.Name}
	s := tm.work[k]
	if s == nil {
		s = &timingStat{tab: &tm.traces}
		tm.work[k] = s
	}
	s.addN(ns, id, tm.keep, w)
}

// sort sorts the samples, and their traces with them: quantile sorts a
// slice in place, which would part the samples from their traces.
func (t *timingStat) sort() {
	if len(t.ids) != len(t.ns) {
		t.sortAlong(nil) // a baseline's: no traces
		return
	}
	t.sortAlong(t.ids)
}

// isConsumer reports whether a span consumes a message: its parent handed
// it over and did not wait for it.
func isConsumer(r *schema.Record) bool {
	for _, k := range [...]string{"span.kind", "otel.span.kind"} {
		if v := strings.ToLower(r.Attrs[k]); v == "consumer" || v == "span_kind_consumer" {
			return true
		}
	}
	return false
}

// shift is the slow samples of a set of edges or operations in the window,
// by two tests: beyond the baseline's tail (slowFactor times its p95), and
// beyond twice its median (a median that moved where the baseline's tail
// is long). The surer of the two speaks for the set.
type shift struct {
	n         int
	tail, mid tally
	// failing is set when the calls failed more often than in the
	// baseline (edges only).
	failing bool
	// p50 and p95 before and after of the set's member whose median rose
	// most.
	b50, w50, b95, w95 float64
	what               string
	examples           []timedTrace
	// looks is the decades taken off the test's evidence for the sets
	// tried beside this one (a Bonferroni correction).
	looks float64
	// joint is the decades of a test of more edges it is part of, when
	// that is surer (wire_combined).
	joint float64
}

// tally is one test's slow samples of a shift.
type tally struct {
	slow int
	// expect is how many samples chance makes slow: per member, its
	// samples times the share of draws that exceed the limit, estimated
	// from the baseline's samples beyond it (exceedance).
	expect float64
	// extra is, per window trace with a slow sample, how much longer its
	// slow samples took than their baseline's median; longest its longest
	// slow sample (the request's duration, as a service's own lines time
	// it, when its trace has no spans to time it by).
	extra, longest map[schema.TraceID]float64
	// members are the tests it pools, for the beta-binomial's decades
	// (bb, once known).
	members []member
	bb      float64
	bbKnown bool
}

func (t *tally) add(o *tally) {
	t.slow += o.slow
	t.expect += o.expect
	t.members = append(t.members, o.members...)
	t.bbKnown = false
	for id, ns := range o.extra {
		t.note(id, ns, o.longest[id])
	}
}

// note adds a slow sample of trace id that took ns longer than its
// baseline's median, dur in all.
func (t *tally) note(id schema.TraceID, ns, dur float64) {
	if t.extra == nil {
		t.extra, t.longest = map[schema.TraceID]float64{}, map[schema.TraceID]float64{}
	}
	t.extra[id] += ns
	t.longest[id] = max(t.longest[id], dur)
}

// decades is how surely t's slow samples of n exceed chance: -log10 of the
// binomial tail P(X >= slow) at its base share, by its Chernoff bound
// exp(-n KL(share || base)). Three of three samples slow against a base of
// 1/4 is 1.8 decades; thirty of a hundred against 5% is 12.
func (t *tally) decades(n int) float64 {
	if n == 0 {
		return 0
	}
	q, p := float64(t.slow)/float64(n), t.expect/float64(n)
	if q <= p || p <= 0 {
		return 0
	}
	kl := q * math.Log(q/p)
	if q < 1 {
		kl += (1 - q) * math.Log((1-q)/(1-p))
	}
	d := float64(n) * kl / math.Ln10
	if t.members == nil {
		return d
	}
	if !t.bbKnown {
		t.bb, t.bbKnown = betaBinomDecades(t.members, t.slow), true
	}
	return min(d, t.bb)
}

// best is the surer of the shift's two tests.
func (s *shift) best() *tally {
	if s.mid.decades(s.n) > s.tail.decades(s.n) {
		return &s.mid
	}
	return &s.tail
}

func (s *shift) share() float64 {
	if s.n == 0 {
		return 0
	}
	return float64(s.best().slow) / float64(s.n)
}

// base is the share of slow samples chance gives.
func (s *shift) base() float64 {
	if s.n == 0 {
		return 0
	}
	return s.best().expect / float64(s.n)
}

func (s *shift) decades() float64 { return max(0, s.best().decades(s.n)-s.looks, s.joint) }

func (s *shift) significant() bool { return s.decades() >= minDecades }

// confidence is how much of its evidence a shift's test carries, 0..1.
func (s *shift) confidence() float64 { return min(1, s.decades()/fullDecades) }

// excess is how far the slow share rose above what chance gives, 0..1,
// weighed by how surely it did.
func (s *shift) excess() float64 {
	if !s.significant() {
		return 0
	}
	p := s.base()
	return max(0, (s.share()-p)/(1-p)) * s.confidence()
}

// slowed is how many of the window's requests the shift slowed: each trace
// with a slow sample counts by how much longer its slow samples made it,
// beyond their baseline's median, against what it took without them (a
// request of 50 ms that waited 185 ms more is slowed by it; one of 300 ms
// that waited 0.5 ms more is not), up to one; less the share chance makes
// slow, and as surely as the test says. A trace without spans counts
// whole. A failing trace counts at most what its failure leaves of it
// unexplained (1 less its novelty, failNews): each anomalous request is
// counted once.
func (s *shift) slowed(w *period) float64 {
	t := s.best()
	if !s.significant() || t.slow == 0 {
		return 0
	}
	beyond := max(0, float64(t.slow)-t.expect) / float64(t.slow)
	k := 0.0
	for id, extra := range t.extra {
		// The request took the trace's span, or, when its spans do not
		// cover the slow sample (a service timed by its own lines),
		// the sample itself.
		d := max(w.timing.durs[id], t.longest[id])
		c := 1.0
		if d > extra {
			c = min(1, extra/(d-extra))
		}
		if news, ok := w.failNews[id]; ok {
			// A failing trace is counted once: what its failure
			// explains of it (its novelty) is its suspect's, and a
			// slower sample of it explains only the rest.
			c = min(c, 1-news)
		}
		k += c
	}
	if t.extra == nil {
		k = float64(t.slow) // samples that name no trace
	}
	return k * beyond * s.confidence()
}

// exceedance is the share of draws from a distribution that exceed a
// limit that k of m earlier draws exceeded: (k+1)/(m+1), whatever the
// distribution, when the limit is one of them. The baseline's p95 of 20
// samples, their 19th, is exceeded by 2 in 21 new ones; of 3 samples,
// their largest, by 1 in 4.
func exceedance(k, m int) float64 { return float64(k+1) / float64(m+1) }

// merge adds one edge's or operation's comparison to s.
func (s *shift) merge(w, b *timingStat, what string) {
	if w == nil || b == nil || w.count() == 0 || b.count() == 0 {
		return
	}
	w.sort()
	b.sort()
	if fw, fb := float64(w.failed)/float64(w.count()), float64(b.failed)/float64(b.count()); fw >= minFailShare && fw >= 2*fb {
		s.failing = true
	}
	b50, b95 := b.quantile(0.5), b.quantile(0.95)
	slow := s.tail.count(w, b, b95*slowFactor+slowFloorNs, b50)
	slow += s.mid.count(w, b, 2*b50+slowFloorNs, b50)
	if w50 := w.quantile(0.5); s.what == "" || w50-b50 > s.w50-s.b50 {
		s.b50, s.w50, s.what = b50, w50, what
		s.b95, s.w95 = b95, w.quantile(0.95)
	}
	s.n += w.count()
	if slow > 0 {
		s.examples = append(s.examples, w.slowest...)
	}
}

// count tallies w's samples beyond limit, and what chance gives from b's;
// b50 is b's median. It returns how many of w's were slow.
func (t *tally) count(w, b *timingStat, limit, b50 float64) int {
	k := 0
	for i, v := range b.ns {
		if v > limit {
			k += b.weight(i)
		}
	}
	slow := 0
	for i, v := range w.ns {
		if v > limit {
			n := w.weight(i)
			slow += n
			if i < len(w.ids) && w.ids[i] != 0 {
				id := w.tab.id(w.ids[i])
				for range n { // as often as the sample counts
					t.note(id, v-b50, v)
				}
			}
		}
	}
	t.slow += slow
	t.expect += float64(w.count()) * exceedance(k, b.count())
	t.members = append(t.members, member{n: w.count(), slow: slow, k: k, m: b.count()})
	t.bbKnown = false
	return slow
}

// timingFinding is what call_timing concludes about one service.
type timingFinding struct {
	kind schema.Kind
	// callers are the services whose calls to it waited longer.
	callers  []string
	strength float64
	// slowedOf are the shifts whose most slowed requests it explains
	// (slowed).
	slowedOf []*shift
	reason   string
	examples []schema.TraceID
}

// slowed is how many of the window's traces the finding slowed: the most
// of its shifts' (shift.slowed), counted when the ranking reads it, once
// the failing traces' novelty is known (counted_once).
func (f *timingFinding) slowed(w *period) float64 {
	n := 0.0
	for _, sh := range f.slowedOf {
		n = max(n, sh.slowed(w))
	}
	return n
}

// timingFindings localises the window's timing shifts on the call graph.
func timingFindings(w, b *period) map[string]*timingFinding {
	if w.timingFound != nil {
		return w.timingFound
	}
	out := map[string]*timingFinding{}
	w.timingFound = out
	if len(w.timing.edges) == 0 || len(b.timing.edges)+len(b.timing.work) == 0 {
		return out
	}
	// Per edge, then which callers' waits grew towards most of their callees.
	edgeShift := map[[2]string]*shift{}
	callees := map[string][]string{}
	for k, ws := range w.timing.edges {
		s := &shift{}
		s.merge(ws, b.timing.edges[k], k[0])
		if s.n == 0 {
			continue
		}
		edgeShift[k] = s
		callees[k[0]] = append(callees[k[0]], k[1])
	}
	// Calls into each service, all callers pooled: a service whose calls
	// in waited longer and whose calls out all did is slow on the wire
	// both ways, and its calls out are its own too.
	intoSlow := map[string]*shift{}
	for k, es := range edgeShift {
		if intoSlow[k[1]] == nil {
			intoSlow[k[1]] = &shift{}
		}
		intoSlow[k[1]].mergeShift(es)
	}
	// Its own work, all operations pooled.
	workSlow := map[string]*shift{}
	ops := map[string][]*shift{}
	for _, k := range sortedOpKeys(w.timing.work) {
		one := &shift{}
		one.merge(w.timing.work[k], b.timing.work[k], k.op)
		ops[k.svc] = append(ops[k.svc], one)
	}
	// One operation that slowed among many that did not drowns in their
	// samples: each is also tested alone, its evidence less the decades of
	// trying them all (Bonferroni), and the surest speaks for the service.
	for svc, all := range ops {
		if len(all) == 1 {
			workSlow[svc] = all[0]
			continue
		}
		pooled := &shift{}
		for _, one := range all {
			pooled.mergeShift(one)
		}
		workSlow[svc] = pooled
		for _, one := range all {
			one.looks = math.Log10(float64(len(all)))
			if one.decades() > workSlow[svc].decades() {
				workSlow[svc] = one
			}
		}
	}
	broad := map[string]bool{}
	w.timingBroad, w.timingOwned, w.timingSlowed = broad, map[[2]string]bool{}, map[[2]string]bool{}
	for k, es := range edgeShift {
		if es.significant() {
			w.timingSlowed[k] = true
		}
	}
	for c, cs := range callees {
		// Only callees with spans of their own count: the wait on one is
		// beyond its own span, while the calls to a callee without spans
		// are its whole time, which may be its own slowness.
		slowed, spanned := 0, 0
		for _, d := range cs {
			if w.timing.opaque[d] {
				continue
			}
			spanned++
			if edgeShift[[2]string{c, d}].significant() {
				slowed++
			}
		}
		both := slowed == spanned && intoSlow[c] != nil && intoSlow[c].significant()
		if slowed >= broadCallees && 2*slowed >= spanned || slowed > 0 && both {
			broad[c] = true
		}
	}
	type svcShifts struct {
		in, out, work shift
		callers       []string
		ownOut        bool // some of its calls' waits are its own
	}
	by := map[string]*svcShifts{}
	get := func(n string) *svcShifts {
		if by[n] == nil {
			by[n] = &svcShifts{}
		}
		return by[n]
	}
	for _, k := range sortedEdges(edgeShift) {
		es := edgeShift[k]
		if broad[k[0]] || callerSide(edgeShift, k, intoSlow, workSlow, w.timing.opaque[k[1]]) {
			// The caller's waits, not the callee's.
			w.timingOwned[k] = true
			get(k[0]).out.mergeShift(es)
			get(k[0]).ownOut = true
			continue
		}
		in := get(k[1])
		in.in.mergeShift(es)
		if es.significant() {
			in.callers = append(in.callers, k[0])
		}
	}
	for svc, ws := range workSlow {
		get(svc).work = *ws
	}
	for _, name := range sortedKeys(by) {
		ss := by[name]
		in, work, outw := ss.in.excess(), ss.work.excess(), ss.out.excess()
		if !ss.ownOut {
			outw = 0
		}
		if in == 0 && work == 0 && outw == 0 {
			continue
		}
		f := &timingFinding{callers: ss.callers}
		switch {
		case w.timing.opaque[name] && in > 0:
			f.kind, f.strength, f.slowedOf = schema.KindLatency, in, []*shift{&ss.in}
			f.reason = fmt.Sprintf("calls to %s, which leaves no spans of its own, from %s took longer: %.0f%% of %d slower than nearly all in the baseline (%s)",
				name, callerList(ss.callers), 100*ss.in.share(), ss.in.n, ss.in.quantiles())
			f.examples = exampleIDs(ss.in.examples)
		case work > 0:
			f.kind, f.strength = schema.KindCPUStarvation, max(work, in, outw)
			f.slowedOf = []*shift{&ss.work, &ss.in}
			if ss.ownOut {
				f.slowedOf = append(f.slowedOf, &ss.out)
			}
			f.reason = fmt.Sprintf("its own work slowed: %.0f%% of %d spans slower than nearly all in the baseline (%s: %s)",
				100*ss.work.share(), ss.work.n, quoteCut(ss.work.what, 50), ss.work.quantiles())
			if in > 0 {
				f.reason += fmt.Sprintf("; calls into it waited longer too (%.0f%% of %d)", 100*ss.in.share(), ss.in.n)
			}
			if outw > 0 {
				f.reason += fmt.Sprintf("; its calls out waited longer (%.0f%% of %d)", 100*ss.out.share(), ss.out.n)
			}
			f.examples = exampleIDs(ss.work.examples)
		case in >= outw:
			f.kind, f.strength, f.slowedOf = schema.KindNetworkDelay, in, []*shift{&ss.in}
			f.reason = fmt.Sprintf("calls into %s from %s waited longer: %.0f%% of %d slower than nearly all in the baseline (%s); its own spans did not slow",
				name, callerList(ss.callers), 100*ss.in.share(), ss.in.n, ss.in.quantiles())
			if outw > 0 {
				// Slow on the wire both ways: the requests whose calls out
				// of it waited are its too.
				f.slowedOf = append(f.slowedOf, &ss.out)
				f.reason += fmt.Sprintf("; its calls out waited longer too (%.0f%% of %d)", 100*ss.out.share(), ss.out.n)
			}
			f.examples = exampleIDs(ss.in.examples)
		default:
			f.kind, f.strength, f.slowedOf = schema.KindNetworkDelay, outw, []*shift{&ss.out}
			if in > 0 {
				f.slowedOf = append(f.slowedOf, &ss.in) // slow on the wire both ways
			}
			f.reason = fmt.Sprintf("its calls out waited longer (%s: %s), where other callers of the same services did not: %.0f%% of %d slower than nearly all in the baseline; its own work did not slow",
				ss.out.what, ss.out.quantiles(), 100*ss.out.share(), ss.out.n)
			f.examples = exampleIDs(ss.out.examples)
		}
		out[name] = f
	}
	if !b.off[ruleWireCombined] {
		wireCombined(w, edgeShift, out)
	}
	return out
}

// quantiles says how the member whose median rose most moved: its p50
// and, when its tail moved more, its p95.
func (s *shift) quantiles() string {
	q := fmt.Sprintf("p50 %s → %s", fmtDur(s.b50), fmtDur(s.w50))
	if s.w95-s.b95 > 2*(s.w50-s.b50) {
		q += fmt.Sprintf(", p95 %s → %s", fmtDur(s.b95), fmtDur(s.w95))
	}
	return q
}

// mergeShift adds an edge's shift into a service's.
func (s *shift) mergeShift(e *shift) {
	if s.what == "" || e.w50-e.b50 > s.w50-s.b50 {
		s.b50, s.w50, s.b95, s.w95, s.what = e.b50, e.w50, e.b95, e.w95, e.what
	}
	s.n += e.n
	s.tail.add(&e.tail)
	s.mid.add(&e.mid)
	if e.tail.slow+e.mid.slow > 0 {
		s.examples = append(s.examples, e.examples...)
	}
}

func callerList(cs []string) string {
	switch len(cs) {
	case 0:
		return "its callers"
	case 1:
		return cs[0]
	default:
		return fmt.Sprintf("%d callers (%s)", len(cs), joinCut(cs, 3))
	}
}

func exampleIDs(ex []timedTrace) []schema.TraceID {
	ex = slices.Clone(ex)
	slices.SortFunc(ex, func(a, b timedTrace) int { return cmp.Or(cmp.Compare(b.ns, a.ns), cmp.Compare(a.id, b.id)) })
	var out []schema.TraceID
	for _, e := range ex {
		if len(out) == maxTimingEx {
			break
		}
		if !slices.Contains(out, e.id) {
			out = append(out, e.id)
		}
	}
	return out
}

// sortedEdges lists the call edges (caller, callee) of m in order.
func sortedEdges[V any](m map[[2]string]V) [][2]string {
	return slices.SortedFunc(maps.Keys(m), func(a, b [2]string) int {
		return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1]))
	})
}

func sortedOpKeys[V any](m map[opKey]V) []opKey {
	return slices.SortedFunc(maps.Keys(m), func(a, b opKey) int {
		return cmp.Or(cmp.Compare(a.svc, b.svc), cmp.Compare(a.op, b.op))
	})
}

// scoreCallTiming is the call_timing signal: what span timing on the call
// graph says of the service.
func scoreCallTiming(in *inputs, s *scored) {
	f := timingFindings(in.win, in.base)[s.service]
	if f == nil || f.strength == 0 {
		return
	}
	// A wait on the wire into it, or its own work, is timed net of its
	// callees; the calls to a service without spans are not.
	s.anomalous, s.timed = true, f.kind != schema.KindLatency
	if f.kind == schema.KindNetworkDelay {
		s.wire = min(1, f.strength)
	}
	if s.kind == "" {
		s.timingKind = f.kind
	}
	s.ownExamples = f.examples
	// The share of slowed calls is spread over a service's pods when one
	// of them is at fault: its square root weighs a third of the calls
	// slowed at 0.58, not 0.33.
	v := wCallTiming * math.Sqrt(min(1, f.strength))
	for i := range s.signals {
		if g := &s.signals[i]; g.Name == "latency" {
			// latency read the same spans: the two together count as
			// the larger, not their sum.
			g.Value = round3(g.Value - min(g.Value, v))
		}
	}
	s.explain("call_timing", f.slowed(in.win))
	s.add("call_timing", v, f.reason)
}

// waitsAreCallers reports whether call_timing put the longer waits of
// every caller whose calls to peer waited longer on the caller's side:
// the peer's slower calls as its callers see them are then theirs, not
// the peer's. Callers whose calls to it did not slow say nothing either
// way (a peer slow for one caller alone is that caller's).
func waitsAreCallers(w, b *period, peer string) bool {
	timingFindings(w, b)
	n := 0
	for k := range w.timing.edges {
		if k[1] != peer || !w.timingSlowed[k] {
			continue
		}
		if !w.timingBroad[k[0]] && !w.timingOwned[k] {
			return false
		}
		n++
	}
	return n > 0
}

// blamedCallee is a callee of svc that call_timing found slow on the wire
// (or slow itself, for a peer without spans) with svc among the callers
// whose calls to it waited longer: svc's own spans around those calls
// then grew by that wait, which is the callee's.
func blamedCallee(w, b *period, svc string) string {
	found := timingFindings(w, b)
	for _, name := range sortedKeys(found) {
		f := found[name]
		if name != svc && (f.kind == schema.KindNetworkDelay || f.kind == schema.KindLatency) && slices.Contains(f.callers, svc) {
			return name
		}
	}
	return ""
}

// callerSide reports whether an edge's longer waits are its caller's: the
// edge slowed, the callee has other callers, and none of their calls to it
// waited longer. Several callers' calls into a service that slowed say it
// is the service; one caller's alone says it is the caller. A callee's
// only caller owns its waits when calls into that caller waited longer
// too, or its own work slowed: one cause explains both.
func callerSide(edges map[[2]string]*shift, k [2]string, into, work map[string]*shift, opaque bool) bool {
	if !edges[k].significant() {
		return false
	}
	others := 0
	for o, es := range edges {
		if o[1] != k[1] || o[0] == k[0] || es.n == 0 {
			continue
		}
		if es.significant() {
			return false
		}
		others++
	}
	if others == 0 {
		// Its only caller: the caller's side when calls into the caller
		// waited longer too, or its own work slowed: one cause for both.
		// Into a callee with spans (whose own work is measured apart from
		// the wire), only when its work slowed in as large a share of its
		// spans as its calls waited longer: a caller whose work slowed in
		// a few spans (reading late answers) while every call waited on
		// the wire does not explain the waits.
		// Unless the calls fail: a failing callee explains the long calls
		// and the time its caller spends retrying them.
		// Or when its calls to another callee waited longer, as much,
		// where that callee's other callers' did not: its own wire slowed
		// them, and this one crosses it too.
		if edges[k].failing {
			return false
		}
		return into[k[0]] != nil && into[k[0]].significant() || work[k[0]] != nil && work[k[0]].significant() && (opaque || work[k[0]].excess() >= edges[k].excess()) ||
			ownsOtherEdge(edges, k)
	}
	return true
}

// ownsOtherEdge reports whether the caller of edge k waited longer on
// another callee, one that has other callers whose calls to it did not
// wait longer (callerSide's first test), in a share of its calls that
// k's share does not surely exceed (sameShare): the caller's own side
// slowed them alike. A few calls out a little slower do not explain
// every call to one callee waiting far longer.
func ownsOtherEdge(edges map[[2]string]*shift, k [2]string) bool {
	for o, es := range edges {
		if o[0] != k[0] || o[1] == k[1] || !es.significant() || !sameShare(edges[k], es) {
			continue
		}
		others, slow := 0, false
		for c, cs := range edges {
			if c[1] == o[1] && c[0] != o[0] && cs.n > 0 {
				others++
				slow = slow || cs.significant()
			}
		}
		if others > 0 && !slow {
			return true
		}
	}
	return false
}

// sameShare reports whether shift a's slow share is no surer than
// minDecades above what b's share allows (b's slow calls of its n, as a
// baseline of a's: betaBinomDecades).
func sameShare(a, b *shift) bool {
	ta, tb := a.best(), b.best()
	return betaBinomDecades([]member{{n: a.n, k: tb.slow, m: b.n}}, ta.slow) < minDecades
}
