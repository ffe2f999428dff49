package rootcause

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/faultline/faultline/correlate"
	"github.com/faultline/faultline/schema"
)

// traceVotes is what the window's failing traces say about the services.
type traceVotes struct {
	traces, failed int
	// news is the failing traces weighted by novelty: how many of them
	// the baseline's rate of their errors does not explain.
	news     float64
	services map[string]*serviceVotes
	edges    map[[2]string]*Edge
	// rollouts counts the traces served before and after each version
	// first seen during the window (deploy_effect); reached holds, until
	// the versions are known, when each healthy trace first reached each
	// service.
	rollouts rollouts
	reached  reached
	// votes are the failing traces' votes, as tallied.
	votes []vote
}

// serviceVotes collects, for one service, the failing traces that point at it.
type serviceVotes struct {
	suspect    float64 // failing traces whose suspect it is, weighted by novelty
	suspectRaw int
	origin     int // failing traces whose first error it logged
	cascade    int // failing traces in which it failed after another service
	pointedBy  map[string]int
	via        map[string]int // services a pointer chain passed through
	// discredited counts the services its refused connections named that
	// kept serving as usual.
	discredited map[string]int
	// paused counts the services its failed calls named while it was
	// itself pausing for GC or short of memory.
	paused map[string]int
	// hosts counts the host names its votes named it by (host_peer).
	hosts map[string]int
	kinds map[schema.Kind]int
	sigs  map[schema.Signature]*sigVote
	// examples are the traces whose own suspect it is (traceSuspect),
	// others those whose votes reached it otherwise (a name settled, a
	// pointer chain followed): an example, opened, names the candidate.
	// Once the votes are tallied, examples are others when it has none.
	examples, others []example
	entries          map[string]int
	first            time.Time
	// pointedW is pointedBy's traces weighted by novelty; firstNew is the
	// earliest of its votes that the baseline's rate does not explain
	// (novelty): errors as frequent as in the baseline begin nothing.
	pointedW float64
	firstNew time.Time
	// ownOrigins counts the failing traces whose origin it is and that
	// point nowhere else; originCallers, per service, those of them in
	// an operation that service called (deploy_effect).
	ownOrigins    int
	originCallers map[string]int
	// callerTimes is, per service in originCallers, when those traces
	// failed.
	callerTimes map[string][]time.Time
	// trips counts, per service that refused work naming no dependency,
	// the failing traces that reached it through those refusals
	// (breaker_trips).
	trips map[string]int
	// owns are its own failing traces (ownOrigins): when, and which
	// services served them on a new version.
	owns []ownFailure
}

// ownFailure is a failing trace whose origin is the service's own.
type ownFailure struct {
	at                   time.Time
	servedAny, servedNew []string
}

type sigVote struct {
	n        int
	message  string
	template string
}

type example struct {
	id schema.TraceID
	at time.Time
}

func (tv *traceVotes) service(name string) *serviceVotes {
	sv := tv.services[name]
	if sv == nil {
		sv = &serviceVotes{pointedBy: map[string]int{}, via: map[string]int{}, discredited: map[string]int{}, paused: map[string]int{}, hosts: map[string]int{}, kinds: map[schema.Kind]int{},
			sigs: map[schema.Signature]*sigVote{}, entries: map[string]int{}, originCallers: map[string]int{}}
		tv.services[name] = sv
	}
	return sv
}

// traceIndex groups a period's records by trace id, as they are read.
// Records without a trace id are left out.
type traceIndex struct {
	idx map[schema.TraceID][]int32
}

// each calls f once per trace with its records (in the order they were
// added), in trace id order. The slice is reused from call to call.
func (ti *traceIndex) each(get func(schema.TraceID, int32, *schema.Record), f func([]schema.Record)) {
	var buf []schema.Record
	ti.eachIn(get, func() []schema.Record { return buf[:0] }, func(recs []schema.Record) bool {
		buf = recs
		f(recs)
		return true
	})
}

// eachIn is each, each trace's records in a buffer buf gives (nil: a new
// one), until f returns false.
func (ti *traceIndex) eachIn(get func(schema.TraceID, int32, *schema.Record), buf func() []schema.Record, f func([]schema.Record) bool) {
	ids := make([]schema.TraceID, 0, len(ti.idx))
	for id := range ti.idx {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		recs := buf()
		for _, i := range ti.idx[id] {
			recs = append(recs, schema.Record{})
			get(id, i, &recs[len(recs)-1])
		}
		if !f(recs) {
			return
		}
	}
}

// analyzeTraces explains every trace of the window and tallies the votes.
// The baseline's profile is only needed, and waited for, once the votes
// are weighed. Each failing trace is explained as `analyze trace` explains
// it (explain): its vote starts from the suspect the trace's own analysis
// names.
func analyzeTraces(window *loaded, bp *basePeriod, opt Options, sr *storeRules) *traceVotes {
	w := window.p
	tv := window.votes
	if tv == nil {
		tv = newTraceVotes(w, opt)
	}
	learn := tv.learner(opt)
	tv.rollouts = rolloutsOf(w)
	var votes []vote
	// Each held trace stands for wt of the window's failing traces
	// (sampleFailing): what it tells is counted wt times, as a streamed
	// trace's is, and its vote cast wt times (the copies are echoes: they
	// count, but are not shown as examples).
	wt := max(window.failK, 1)
	window.eachExplained(opt.Correlate, func(recs []schema.Record, res *correlate.Result) {
		if !anyError(recs) {
			learn(w, recs, wt) // a trace fails only by an error record: nothing to explain
			return
		}
		tv.traces += wt
		w.addSelfTimes(recs, tv.edge, wt)
		w.addBehaviour(recs, wt)
		tv.addEdges(recs, opt.Off[ruleSpanlessEntry], wt)
		served := tv.rollouts.served(recs)
		res = sr.apply(recs, res)
		failed := res != nil && res.Failed && res.Origin != nil && res.Origin.Service != ""
		for range wt {
			tv.rollouts.count(served, failed)
		}
		if !failed {
			return
		}
		tv.failed += wt
		v := newVote(res, entryOf(recs), 0, opt.Off[ruleOwnTroubleStays])
		v.servedAny, v.servedNew = slices.Clone(served.svcs), served.newer()
		v.through = servicesOf(recs)
		v.caller = w.originCaller(recs, res.Origin.SpanID, res.Origin.Service, res.Origin.Timestamp)
		v.echoes = wt - 1
		votes = append(votes, v)
		for range wt {
			w.countAfterCalls(res)
		}
	})
	tv.rollouts.countReached(&tv.reached)
	tv.reached = reached{}
	w.markFollowed()
	b := bp.get()
	b.off = opt.Off
	for i := range votes {
		votes[i].news = novelty(w, b, votes[i].origin.Service, votes[i].origin.Signature)
		votes[i].weight = max(chainFloor, votes[i].news)
		for j := range votes[i].hops {
			h := &votes[i].hops[j]
			h.weight = max(chainFloor, novelty(w, b, h.from, h.sig))
		}
	}
	resolveNames(votes, w, b, tv)
	keepTroubledVotes(votes, w, b)
	// A refused connection says the callee could not be reached; a callee
	// that kept serving as usual contradicts it, and the failure is on the
	// caller's side of the call. (Timeouts and open breakers speak of the
	// callee's quality of service, which its own records may not show: an
	// open breaker keeps its traffic away.)
	for i := range votes {
		if v := &votes[i]; v.kind == schema.KindConnectionRefused && v.target != v.origin.Service && keptServing(w, b, v.target) {
			v.discredited = v.target
			v.target, v.kind = v.origin.Service, v.origin.Class
		}
	}
	steady := func(from, to string) bool {
		return seenSteady(w, b, to) || !opt.Off[ruleOwnWaitsStay] && ownWaits(w, b, from, to)
	}
	chains := pointerChains(votes, steady, opt.Off)
	for i := range votes {
		tv.tally(&votes[i], chains)
	}
	for _, sv := range tv.services {
		if len(sv.examples) == 0 {
			sv.examples, sv.others = sv.others, nil
		}
	}
	tv.votes = votes
	return tv
}

// newTraceVotes readies the window w's tally.
func newTraceVotes(w *period, opt Options) *traceVotes {
	w.timing.keep = true
	w.aboutOff = opt.Off[ruleAboutOther]
	return &traceVotes{services: map[string]*serviceVotes{}, edges: map[[2]string]*Edge{}}
}

// learner learns from a healthy trace of the window: its services' self
// times and calls, its operations' behaviour, its edges, and when it
// reached each service (for the versions that served it, once known).
func (tv *traceVotes) learner(opt Options) learner {
	entryOff := opt.Off[ruleSpanlessEntry]
	return func(w *period, recs []schema.Record, n int) {
		tv.traces += n
		w.addSelfTimes(recs, tv.edge, n)
		w.addBehaviour(recs, n)
		tv.addEdges(recs, entryOff, n)
		tv.reached.add(recs, n)
	}
}

// vote is what one failing trace says: where its origin points.
type vote struct {
	trace  schema.TraceID
	origin correlate.Event
	// suspect is the trace's own suspect (traceSuspect), target where its
	// vote goes as the window's votes are weighed.
	suspect string
	target  string
	kind    schema.Kind
	// news is the novelty of its origin's error: how much of it the
	// baseline's rate does not explain (what the trace explains); weight
	// is the same, at least chainFloor (where failures lead).
	news, weight float64
	entry        string
	cascade      []string
	via          string // the service a pointer chain passed through, if any
	// discredited is the service the origin pointed at, when that service
	// kept serving as usual: the failure is then the origin's own.
	discredited string
	// paused is the service the origin pointed at, when the origin was
	// itself in trouble (GC, memory) first: the failure is its own.
	paused string
	// host is the host's name the vote named its target by, when
	// host_peer put the peer its callers' spans name in its place.
	host string
	// caller is the service that called the origin's operation.
	caller string
	// through are the services that took part in the trace.
	through []string
	// refuser is the service that logged the trace's full bulkhead of
	// its target, when one did: the target itself, or a caller whose own
	// pool for calls to it was full (breaker_trips).
	refuser string
	// servedAny are the rollouts' services that served the trace;
	// servedNew those that served it on their new version.
	servedAny, servedNew []string
	// hops are the trace's other errors that point at a dependency: where
	// the failures of services between the origin and the end led.
	hops []hop
	// echoes is how many failing traces more the vote stands for (a
	// sampled failing trace's weight less one: sampleFailing): it counts
	// as 1+echoes votes alike, cast once.
	echoes int
}

// count is how many failing traces alike v stands for.
func (v *vote) count() int { return 1 + v.echoes }

// hop is one error of a trace's cascade that points at a dependency.
type hop struct {
	from, to string
	sig      schema.Signature
	weight   float64
	// own is set when the error tells of from's own resources, whatever
	// callee it names (own_trouble_stays).
	own bool
}

func newVote(res *correlate.Result, entry string, weight float64, offOwn bool) vote {
	v := vote{trace: res.TraceID, origin: *res.Origin, weight: weight, entry: entry}
	v.target, v.kind = traceSuspect(res)
	v.suspect = v.target
	for _, c := range res.Cascade {
		v.cascade = append(v.cascade, c.Service)
	}
	for _, f := range res.Failures {
		if v.refuser == "" && f.Class == schema.KindBulkheadFull && (f.Service == v.target || f.Target == v.target) {
			v.refuser = f.Service
		}
		switch {
		case f.Service == v.origin.Service:
		case f.Target == "" || f.Target == f.Service:
			// Its own trouble (a GC pause, a slow query): the service's
			// failures may be its own. A symptom that names nothing (an
			// open breaker, a timeout, a bare 5xx) says nothing either way.
			if !f.Class.PointsElsewhere() && !f.Class.Vague() {
				v.hops = append(v.hops, hop{from: f.Service, to: f.Service, sig: f.Signature})
			}
		case f.Error && f.Role == "cascade":
			h := hop{from: f.Service, to: f.Target, sig: f.Signature}
			if ownTrouble(f.Class) && !offOwn {
				h.to, h.own = f.Service, true
			}
			v.hops = append(v.hops, h)
		}
	}
	return v
}

// ruleOwnTroubleStays: an error that tells of its own service's resources
// (a connection pool with no free connection, GC pauses, memory or CPU
// running out) leads to that service, whatever callee it names. A pool's
// "timeout acquiring a connection" to the orders database never reached
// the database: the wait was for the service's own connections. Without
// it, a service that is seldom a trace's first error hands the traces
// passing through it to the database its pool errors name (pointerChains
// follows where its errors mid-chain point), and the database, which wrote
// nothing, ranks first for the service's exhausted pool.
//
// Condition: a cascade error of kind db-pool-exhaustion, resource-gc, oom
// or cpu-starvation that names a callee.
// Scenario: testdata/own_trouble_stays.txtar.
const ruleOwnTroubleStays = "own_trouble_stays"

// ownTrouble reports whether an error of kind k tells of its own
// service's resources.
func ownTrouble(k schema.Kind) bool {
	switch k {
	case schema.KindDBPoolExhaustion, schema.KindResourceGC, schema.KindOOM, schema.KindCPUStarvation:
		return true
	}
	return false
}

// pointerChains follows pointers across traces: when the service a vote
// points at (say, the dependency behind an open breaker) mostly fails, in
// its own traces, by pointing at yet another service, the vote moves on to
// that one, unless steady(from, to) says the failures from one to the
// other are not the other's: it was seen serving as usual (its failures
// are then the usual noise), or the waits were the caller's own
// (own_waits_stay). It returns, for each target, where
// its chain ends. Failures
// count by their votes' novelty weight: errors a service logs as often as
// in the baseline say nothing about where today's failures lead.
func pointerChains(votes []vote, steady func(from, to string) bool, off map[string]bool) chains {
	out := map[string]map[string]float64{} // origin service -> weighted targets of its errors
	raw := map[[2]string]int{}             // (origin, target) -> votes
	news := map[string]float64{}           // origin service -> its votes' novelty
	involved := map[string]bool{}          // services that are a vote's origin or target
	for _, v := range votes {
		involved[v.origin.Service], involved[v.target] = true, true
		if v.target == v.origin.Service && v.kind.PointsElsewhere() {
			// A symptom (an open breaker, a timeout) whose dependency the
			// trace did not name says nothing about where this service's
			// failures lead; its resolved failures do.
			continue
		}
		m := out[v.origin.Service]
		if m == nil {
			m = map[string]float64{}
			out[v.origin.Service] = m
		}
		n := v.count()
		m[v.target] += v.weight * float64(n)
		raw[[2]string{v.origin.Service, v.target}] += n
		news[v.origin.Service] += v.news * float64(n)
	}
	// Where the failures of a service that is seldom a trace's origin lead
	// shows in the traces that pass through it.
	passing := map[string]map[string]float64{} // service -> weighted targets of its errors mid-chain
	rawPassing := map[[2]string]int{}
	ownPassing := map[string]float64{} // service -> weight of those that tell of its own resources
	for _, v := range votes {
		n := v.count()
		for _, h := range v.hops {
			if h.own {
				ownPassing[h.from] += h.weight * float64(n)
			}
			m := passing[h.from]
			if m == nil {
				m = map[string]float64{}
				passing[h.from] = m
			}
			m[h.to] += h.weight * float64(n)
			rawPassing[[2]string{h.from, h.to}] += n
		}
	}
	// Where the failures of a service that refuses work (its breaker or
	// bulkhead open) lead, when it names no dependency, shows in the
	// failing traces it served without failing: the work that tripped
	// the breaker failed there, further down (a queue's breaker keyed by
	// a namespace opens on the jobs its holders failed).
	refusing, tripped := map[string]bool{}, map[string]bool{}
	served := map[string]map[string]float64{} // service -> weighted targets of the failing traces it served
	rawServed := map[[2]string]int{}
	for _, v := range votes {
		if v.kind == schema.KindCircuitOpen || v.kind == schema.KindBulkheadFull {
			// Only a service that took part in the trace refused it
			// itself; a caller's own breaker keeps calls away from its
			// dependency, which then leaves no record (that one is the
			// chains' above). A bulkhead is a caller's pool per
			// dependency: the dependency refused nothing unless it
			// logged the refusal itself, even when it took part in the
			// trace's earlier attempts.
			if slices.Contains(v.through, v.target) && (v.kind != schema.KindBulkheadFull || v.refuser == "" || v.refuser == v.target) {
				refusing[v.target] = true
			}
			continue
		}
		for _, s := range v.through {
			if s == v.target || s == v.origin.Service {
				continue
			}
			m := served[s]
			if m == nil {
				m = map[string]float64{}
				served[s] = m
			}
			m[v.target] += v.news * float64(v.count()) // today's failures: usual noise tripped nothing new
			rawServed[[2]string{s, v.target}] += v.count()
		}
	}
	// lead is where most of t's weighted failures m point, other than t
	// itself, when more than one trace says so (one stray trace does not
	// redirect hundreds) and that service was not seen serving as usual.
	lead := func(t string, m map[string]float64, raw map[[2]string]int) (best string, n int) {
		total := 0.0
		for _, u := range sortedKeys(m) {
			total += m[u]
			n += raw[[2]string{t, u}]
			if u != t && (best == "" || m[u] > m[best]) {
				best = u
			}
		}
		if best != "" && m[best]*2 >= total && raw[[2]string{t, best}] >= 2 && !steady(t, best) {
			return best, n
		}
		return "", n
	}
	next := func(t string) string {
		// Where the traces that begin with its failures point, when
		// they are today's: two failures the baseline's rate explains
		// (news 0.7) do not carry the hundreds of votes its callers'
		// timeouts gave it.
		best, n := lead(t, out[t], raw)
		if best != "" && news[t] >= 2 {
			return best
		}
		passBest, _ := lead(t, passing[t], rawPassing)
		if n < 2 || news[t] < 2 {
			// Too few traces begin with its failures to say where they
			// lead, or too few that the baseline's rate does not explain
			// (its usual noise says nothing of today): those passing
			// through it say it, else, when it refuses work, those it
			// served (breaker_trips), unless those passing through it
			// mostly tell of its own resources (own_trouble_stays).
			if passBest == "" && refusing[t] && !off[ruleBreakerTrips] && !mostlyOwn(ownPassing[t], passing[t]) {
				if passBest, _ = lead(t, served[t], rawServed); passBest != "" {
					tripped[t] = true
				}
			}
			return passBest
		}
		return ""
	}
	ch := chains{ends: map[string]string{}, trips: map[string]string{}, offStays: off[ruleThrottleStays], offDeploy: off[ruleDeployStays], offRefused: off[ruleRefusedStays]}
	for t := range involved {
		seen := map[string]bool{t: true}
		cur := t
		for range 6 {
			n := next(cur)
			if n == "" || seen[n] {
				break
			}
			if tripped[cur] && ch.trips[t] == "" {
				ch.trips[t] = cur
			}
			seen[n] = true
			cur = n
		}
		if cur != t {
			ch.ends[t] = cur
		} else {
			delete(ch.trips, t)
		}
	}
	return ch
}

// ruleOwnWaitsStay: a service whose calls to a callee waited longer while
// the callee's other callers' calls to it did not (call_timing's caller
// side: its egress, its network, its client) owns the timeouts of those
// calls. Votes that point at it stay with it: the pointer chains do not
// move them to that callee because its own failures, as an origin or in
// the middle of the traces passing through it, timed out on it. A network
// delay at a service slows its calls out as well as its answers; the
// callee it times out on kept answering everyone else.
//
// Condition: call_timing put the waits of the chain's edge (from, to) on
// from's side (a caller-side edge, or a caller whose calls to most
// callees waited longer).
// Scenario: testdata/own_waits_stay.txtar.
const ruleOwnWaitsStay = "own_waits_stay"

// ownWaits reports whether call_timing found from's calls to to slower
// on from's side.
func ownWaits(w, b *period, from, to string) bool {
	timingFindings(w, b)
	k := [2]string{from, to}
	return w.timingOwned[k] || w.timingBroad[from] && w.timingSlowed[k]
}

// mostlyOwn reports whether own is at least half the weight of the
// failures m.
func mostlyOwn(own float64, m map[string]float64) bool {
	total := 0.0
	for _, w := range m {
		total += w
	}
	return total > 0 && own*2 >= total
}

// chains are where pointer chains end: per target, the service its
// chain ends at, and the refusing service whose served traces a chain
// followed (breaker_trips), if any.
type chains struct {
	ends, trips map[string]string
	// offStays leaves ruleThrottleStays out, offDeploy ruleDeployStays,
	// offRefused ruleRefusedStays.
	offStays, offDeploy, offRefused bool
}

// ruleThrottleStays: a 429 is its throttler's own answer. A vote for a
// service that refused with "too many requests" stays with it: the pointer
// chains do not move it to where that service's other failures lead (its
// own calls to a dependency failing in a few traces do not say why it
// throttles), as the per-trace walk stops at a throttler unless it was
// throttled itself further down.
//
// Condition: the vote's kind is rate-limit.
// Scenario: testdata/throttle_stays.txtar.
const ruleThrottleStays = "throttle_stays"

// throttleStays reports whether vote v keeps its target against a chain.
func throttleStays(v *vote, off bool) bool {
	return !off && v.kind == schema.KindRateLimit
}

// ruleDeployStays: a vote for a new version whose answers its callee's
// callee refused (correlate's caller_deploy: a classifier's new label
// that the payment service rejects) stays with it. The version failed
// nothing of its own; where its own few failures lead (a model API it
// calls timing out now and then) says nothing of why its answers are
// refused, and the pointer chains must not move the vote there.
//
// Condition: the vote's kind is bad-deploy.
// Scenario: testdata/deploy_stays.txtar (read through a store, where
// caller_deploy runs).
const ruleDeployStays = "deploy_stays"

// deployStays reports whether vote v keeps its target against a chain.
func deployStays(v *vote, off bool) bool {
	return !off && v.kind == schema.KindBadDeploy
}

// ruleRefusedStays: a refused connection says its callee was not
// listening (down, restarting, its port closed). A vote for a service that
// refused its callers' connections stays with it: the pointer chains do
// not move it to where its own few failing traces pointed before it went
// down (a dependency's usual errors), which cannot have closed its port.
//
// Condition: the vote's kind is connection-refused and its target is not
// its origin's own service.
// Scenario: testdata/refused_stays.txtar.
const ruleRefusedStays = "refused_stays"

// refusedStays reports whether vote v keeps its target against a chain.
func refusedStays(v *vote, off bool) bool {
	return !off && v.kind == schema.KindConnectionRefused && v.target != v.origin.Service
}

// keeps reports whether vote v keeps its target against a chain: a
// throttler's, a new version's or a refusing service's own answer.
func (ch chains) keeps(v *vote) bool {
	return throttleStays(v, ch.offStays) || deployStays(v, ch.offDeploy) || refusedStays(v, ch.offRefused)
}

func (tv *traceVotes) tally(v *vote, ch chains) {
	o := &v.origin
	target := v.target
	if end, ok := ch.ends[target]; ok && !ch.keeps(v) {
		v.via, target = target, end
	}
	sv := tv.service(target)
	n := v.count()
	if by := ch.trips[v.target]; by != "" && v.via != "" {
		if sv.trips == nil {
			sv.trips = map[string]int{}
		}
		sv.trips[by] += n
	}
	tv.news += v.news * float64(n)
	sv.suspectRaw += n
	sv.suspect += v.news * float64(n)
	sv.kinds[v.kind] += n
	if target != o.Service {
		sv.pointedBy[o.Service] += n
		sv.pointedW += v.weight * float64(n)
	}
	if v.news >= newVoteWeight && (sv.firstNew.IsZero() || o.Timestamp.Before(sv.firstNew)) {
		sv.firstNew = o.Timestamp
	}
	if v.via != "" {
		sv.via[v.via] += n
	}
	if v.discredited != "" {
		sv.discredited[v.discredited] += n
	}
	if v.paused != "" {
		sv.paused[v.paused] += n
	}
	if v.host != "" {
		sv.hosts[v.host] += n
	}
	tv.service(o.Service).origin += n
	if target == o.Service {
		sv.addSig(o.Signature, o.Message, n)
		sv.ownOrigins += n
		for range n {
			sv.owns = append(sv.owns, ownFailure{at: o.Timestamp, servedAny: v.servedAny, servedNew: v.servedNew})
		}
		if v.caller != "" {
			sv.originCallers[v.caller] += n
			if sv.callerTimes == nil {
				sv.callerTimes = map[string][]time.Time{}
			}
			for range n {
				sv.callerTimes[v.caller] = append(sv.callerTimes[v.caller], o.Timestamp)
			}
		}
	}
	if v.entry != "" {
		sv.entries[v.entry] += n
	}
	if sv.first.IsZero() || o.Timestamp.Before(sv.first) {
		sv.first = o.Timestamp
	}
	switch ex := (example{id: v.trace, at: o.Timestamp}); {
	case v.suspect == target:
		sv.examples = append(sv.examples, ex)
	default:
		sv.others = append(sv.others, ex)
	}
	for _, c := range v.cascade {
		if c != target {
			tv.service(c).cascade += n
		}
	}
}

func (sv *serviceVotes) addSig(sig schema.Signature, msg string, n int) {
	if sig == "" {
		return
	}
	v := sv.sigs[sig]
	if v == nil {
		v = &sigVote{message: msg}
		sv.sigs[sig] = v
	}
	v.n += n
}

// ruleBreakerTrips follows a service that refuses work and names no
// dependency (an open breaker keyed by a namespace, a region, a tenant)
// to where the failing traces it served lead: the work that tripped it.
// A full bulkhead must be the service's own (it logged it): a caller whose
// own bulkhead, its pool for calls to the service, turned calls away
// ("bulkhead payment full", logged by the caller) made it refuse nothing,
// even in traces whose earlier attempts it served. (A breaker's refusal a
// caller quotes, "responded 423: namespace … is paused", is the service's.)
const ruleBreakerTrips = "breaker_trips"

// passedThrough counts the failing traces whose votes a pointer chain
// moved on from svc to a deeper service.
func (tv *traceVotes) passedThrough(svc string) int {
	n := 0
	for _, sv := range tv.services {
		n += sv.via[svc]
	}
	return n
}

// tripReason is what trace_origin says of the failing traces that
// reached the service through refusals that name no dependency.
func (sv *serviceVotes) tripReason() string {
	out := ""
	for _, by := range sortedKeys(sv.trips) {
		out += fmt.Sprintf("; %d of them were refused by %s, which named no dependency: the failing traces it served lead here [%s]",
			sv.trips[by], by, ruleBreakerTrips)
	}
	return out
}

// servicesOf lists the services of a trace's records, each once.
func servicesOf(recs []schema.Record) []string { return appendServices(nil, recs) }

// appendServices appends to out the services of a trace's records, each
// once.
func appendServices(out []string, recs []schema.Record) []string {
	for i := range recs {
		if s := recs[i].Service; s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// entryOf names the trace's entry point: the root span's service and
// operation, else the service of its earliest record.
func entryOf(recs []schema.Record) string {
	var first *schema.Record
	for i := range recs {
		r := &recs[i]
		if r.Type == schema.TypeSpan && r.ParentSpanID == "" {
			return r.Service + " " + r.Name
		}
		if first == nil || r.Time.Before(first.Time) {
			first = r
		}
	}
	if first == nil {
		return ""
	}
	return first.Service
}

// ruleSpanlessEntry: a span whose parent is missing and that no call of
// the trace encloses (spanless_parent places those) was called by the
// service that took the request and leaves no spans: an edge proxy or a
// gateway that only logs ("handling request GET /subtitles/{id}" …
// "GET /subtitles/57688 200 727.8ms"), whose lines begin the trace and
// enclose the span. The call graph then has the edge, and the proxy's
// stated durations, which include its wait on that service, are judged
// with it (downstream).
//
// Condition: the span's parent id names no span of the trace and no call
// span encloses it; exactly one service of the trace has records but no
// span, its first record is the trace's first, and its records begin no
// later than the span and end no earlier.
// Scenario: testdata/spanless_entry.txtar.
const ruleSpanlessEntry = "spanless_entry"

// spanlessEntry is the service of recs that took the request and leaves no
// spans (see ruleSpanlessEntry), with the span of its first and last
// record; "" when none or several qualify.
func spanlessEntry(recs []schema.Record) (svc string, from, to time.Time) {
	withSpans := map[string]bool{}
	var first time.Time
	for i := range recs {
		if recs[i].Type == schema.TypeSpan {
			withSpans[recs[i].Service] = true
		}
		if t := recs[i].Time; first.IsZero() || t.Before(first) {
			first = recs[i].Time
		}
	}
	for i := range recs {
		r := &recs[i]
		if r.Type == schema.TypeSpan || r.Service == "" || withSpans[r.Service] {
			continue
		}
		if svc != "" && r.Service != svc {
			return "", time.Time{}, time.Time{} // several services only log
		}
		switch {
		case svc == "":
			svc, from, to = r.Service, r.Time, r.Time
		case r.Time.Before(from):
			from = r.Time
		case r.Time.After(to):
			to = r.Time
		}
	}
	if svc == "" || !from.Equal(first) {
		return "", time.Time{}, time.Time{}
	}
	return svc, from, to
}

// addEdges records caller -> callee service pairs from the span tree
// (and, unless entryOff, spanless_entry's), of w traces alike.
func (tv *traceVotes) addEdges(recs []schema.Record, entryOff bool, w int) {
	svcOf := map[schema.SpanID]*schema.Record{}
	for i := range recs {
		if recs[i].Type == schema.TypeSpan {
			svcOf[recs[i].SpanID] = &recs[i]
		}
	}
	// Calls to uninstrumented peers come from addSelfTimes (onPeer).
	var spanless map[schema.SpanID]string
	var entry string
	var efrom, eto time.Time
	for i := range recs {
		r := &recs[i]
		if r.Type != schema.TypeSpan {
			continue
		}
		if r.ParentSpanID == "" {
			continue
		}
		from := ""
		if p := svcOf[r.ParentSpanID]; p != nil {
			from = p.Service
		} else {
			// Its parent is a span never exported: of the service without
			// spans whose call encloses it, when there is one
			// (correlate's spanless_parent).
			if spanless == nil {
				spanless = correlate.SpanlessCallers(recs)
				if !entryOff {
					entry, efrom, eto = spanlessEntry(recs)
				}
			}
			from = spanless[r.SpanID]
			if from == "" && entry != "" && !r.Time.Before(efrom) && !r.Time.After(eto) {
				from = entry // spanless_entry
			}
		}
		if from == r.Service || from == "" || r.Service == "" {
			continue
		}
		tv.edge(from, r.Service, r.IsError(), w)
	}
}

// edge counts n calls from -> to.
func (tv *traceVotes) edge(from, to string, failed bool, n int) {
	k := [2]string{from, to}
	e := tv.edges[k]
	if e == nil {
		e = &Edge{From: from, To: to}
		tv.edges[k] = e
	}
	e.Calls += n
	if failed {
		e.Errors += n
	}
}

func (tv *traceVotes) edgeList() []Edge {
	out := make([]Edge, 0, len(tv.edges))
	for _, e := range tv.edges {
		out = append(out, *e)
	}
	slices.SortFunc(out, func(a, b Edge) int {
		return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To))
	})
	return out
}

// callees lists the services svc calls, per the window's spans.
func (tv *traceVotes) callees(svc string) []string {
	var out []string
	for k := range tv.edges {
		if k[0] == svc {
			out = append(out, k[1])
		}
	}
	slices.Sort(out)
	return out
}

// resolveNames settles the names that votes' messages give dependencies.
// A message may name one by a label short for it (a breaker or retry named
// "geo" guarding calls to geo-api): a name nothing else knows becomes the
// caller's one callee whose name it begins. Names that differ only in case
// and punctuation ("identityprovider", "identity-provider") are one: the
// spelling with the most punctuation, as a host name or an attribute gives
// it, stands for the others (a name a service goes by first).
func resolveNames(votes []vote, w, b *period, tv *traceVotes) {
	aliases := map[[2]string]string{}
	byHost := map[[2]string]bool{} // the alias is host_peer's
	hostPeers := map[string]string{}
	hostPeer := func(label string) string {
		p, ok := hostPeers[label]
		if !ok {
			p = w.peerOfHost(label, b.off[ruleHostPeer])
			hostPeers[label] = p
		}
		return p
	}
	var knownAll []string
	for i := range votes {
		v := &votes[i]
		if v.target == v.origin.Service || known(w, b, v.target) {
			continue
		}
		k := [2]string{v.origin.Service, v.target}
		a, ok := aliases[k]
		if !ok {
			if correlate.IsAddress(v.target) {
				a = w.peerAt(v.target)
			} else if a = hostPeer(v.target); a != "" {
				byHost[k] = true
			} else {
				a = aliasOf(v.target, append(tv.callees(v.origin.Service), b.calleesOf(v.origin.Service)...))
				if a == "" {
					if knownAll == nil {
						knownAll = knownNames(w, b)
						for _, u := range votes {
							if !slices.Contains(knownAll, u.target) {
								knownAll = append(knownAll, u.target)
							}
						}
					}
					a = tailOf(v.target, knownAll, v.origin.Message)
				}
			}
			aliases[k] = a
		}
		if a != "" {
			if byHost[k] {
				v.host = v.target
			}
			v.target = a
		}
	}
	spelling := map[string]string{}      // NameKey -> the spelling that stands for it
	better := func(t, cur string) bool { // a known name first, then the most punctuated
		if kt, kc := known(w, b, t), known(w, b, cur); kt != kc {
			return kt
		}
		return len(t) > len(cur) || len(t) == len(cur) && t < cur
	}
	for i := range votes {
		t := votes[i].target
		k := correlate.NameKey(t)
		if cur, ok := spelling[k]; !ok || better(t, cur) {
			spelling[k] = t
		}
	}
	// One dependency also goes by names told apart by a generic suffix:
	// a host's label ("geo-vendor" of api.geo-vendor.example.com) and the
	// name its callers' lines give it ("retrying request to
	// geo-vendor-api", in a vote or in any warning of the window: a
	// breaker's label, told). A name nothing knows joins the one other
	// such name it is the same service as, the longest (or the known one)
	// standing for both; with several, it stays itself.
	names := sortedKeys(spelling)
	for _, p := range [...]*period{w, b} {
		for _, n := range slices.Sorted(maps.Keys(p.told)) {
			if k := correlate.NameKey(n); !slices.Contains(names, k) && len(n) > len(spelling[k]) {
				spelling[k] = n // the most punctuated, as for the votes
			}
		}
	}
	others := sortedKeys(spelling) // the votes' names and the told ones
	for _, k := range names {
		t := spelling[k]
		if known(w, b, t) || strings.Contains(t, ".") {
			continue
		}
		same := ""
		for _, k2 := range others {
			u := spelling[k2]
			if k2 == k || strings.Contains(u, ".") || !correlate.SameService(t, u) {
				continue
			}
			if same != "" {
				same = ""
				break
			}
			same = u
		}
		if same != "" && better(same, t) {
			spelling[k] = same
		}
	}
	for i := range votes {
		if v := &votes[i]; !known(w, b, v.target) {
			v.target = spelling[correlate.NameKey(v.target)]
		}
	}
}

// ruleHostPeer: a dependency's callers name it two ways: their spans by
// the name of the service (peer.service "git-host-api"), their errors by
// the host they called ("request to https://api.forge.example.com/refs
// timed out", which the per-trace analysis names forge). A failed call's
// span whose status gives that host, under the peer its span names, says
// they are one: a vote for the host's name goes to the peer's, when every
// such span agrees. Without it the votes of the callers that log split
// from the timing and the votes of those whose spans name the peer, and
// the host's name, a service nothing else knows, ranks beside it.
//
// Condition: the vote's target is no service the window or baseline
// knows; failed calls' spans (period.failedCalls) whose status message
// gives a host of that name name one peer.
// Scenario: testdata/host_peer.txtar.
const ruleHostPeer = "host_peer"

// peerOfHost names the peer whose failed calls' messages give a host
// named label (correlate.NamesHost), when all such calls agree; "" when
// none do or off.
func (p *period) peerOfHost(label string, off bool) string {
	if off {
		return ""
	}
	peer := ""
	for _, msg := range slices.Sorted(maps.Keys(p.failedCalls)) {
		q := p.failedCalls[msg]
		if q == label || !correlate.NamesHost(msg, label) {
			continue
		}
		if peer != "" && q != peer {
			return ""
		}
		peer = q
	}
	return peer
}

// peerAt names the peer behind an address: the one named by a failed
// call whose error message gives that address, when all such calls agree.
func (p *period) peerAt(addr string) string {
	peer := ""
	for msg, q := range p.failedCalls {
		if !correlate.MentionsAddress(msg, addr) {
			continue
		}
		if peer != "" && q != peer {
			return ""
		}
		peer = q
	}
	return peer
}

// calleesOf lists the services svc called in the period (an open breaker
// may keep it from calling them in the window).
func (p *period) calleesOf(svc string) []string {
	set := map[string]bool{}
	for k, st := range p.ops {
		if k.svc != svc {
			continue
		}
		for ev := range st.events {
			if c := p.callee(ev); c != "" && c != svc {
				set[c] = true
			}
		}
	}
	return sortedKeys(set)
}

// keepTroubledVotes gives back to their origin the votes of failed calls
// made while the origin itself was in trouble: a service pausing for GC or
// running out of memory fails its own calls, and when that trouble is new
// and began no later than the call failed, the failure is its own, not
// its dependency's.
func keepTroubledVotes(votes []vote, w, b *period) {
	troubled := map[string]*trouble{}
	for i := range votes {
		v := &votes[i]
		o := v.origin.Service
		if v.target == o || !pointerKind(v.kind) {
			continue
		}
		tr, ok := troubled[o]
		if !ok {
			tr = troubleOf(w, b, o)
			troubled[o] = tr
		}
		if tr != nil && !tr.first.After(v.origin.Timestamp) {
			v.paused = v.target
			v.target, v.kind = o, tr.kind
		}
	}
}

// pointerKind reports whether a failure of this kind blames the callee it
// names: a symptom (timeout, open breaker, ...) or the callee's answer.
func pointerKind(k schema.Kind) bool {
	return k.PointsElsewhere() || k == schema.KindTransient || k == schema.KindRateLimit
}

// trouble is a service's own resource trouble in the window: the kind
// (resource-gc or oom) and when it began.
type trouble struct {
	kind  schema.Kind
	first time.Time
}

// troubleOf returns svc's resource trouble in the window when it is new:
// enough lines of GC pressure or memory exhaustion (correlate.Troubled), at
// three times the baseline's rate or more; nil otherwise.
func troubleOf(w, b *period, svc string) *trouble {
	ws := w.services[svc]
	if ws == nil {
		return nil
	}
	var out *trouble
	n := 0
	for _, ts := range ws.templates {
		if ts.kind != schema.KindResourceGC && ts.kind != schema.KindOOM {
			continue
		}
		n += ts.count
		if out == nil || ts.first.Before(out.first) {
			out = &trouble{kind: ts.kind, first: ts.first}
		}
	}
	nb := 0
	if bs := b.services[svc]; bs != nil && b.records > 0 {
		for _, ts := range bs.templates {
			if ts.kind == schema.KindResourceGC || ts.kind == schema.KindOOM {
				nb += ts.count
			}
		}
	}
	// The condition and its constants are correlate's troubled_caller.
	if !correlate.Troubled(n, w.minutes(), nb, b.minutes()) {
		return nil
	}
	return out
}

// known reports whether svc left records of its own or was called in
// either period.
func known(w, b *period, svc string) bool {
	for _, p := range [...]*period{w, b} {
		if sp := p.services[svc]; sp != nil && (sp.records > 0 || sp.peerNs.count() > 0) {
			return true
		}
	}
	return false
}

// aliasOf is the one callee whose name starts with label (ignoring case
// and punctuation: "geo" for geo-api, "identityprovider" for
// identity-provider), or "" when none or several do.
func aliasOf(label string, callees []string) string {
	found := ""
	for _, c := range callees {
		if correlate.Abbreviates(label, c) && c != found {
			if found != "" {
				return ""
			}
			found = c
		}
	}
	return found
}

// tailOf is the one name that ends with label after a dash, or "": a
// host's first label is often the instance's region or site, the last
// part of the service's name ("us-tx-1" of us-tx-1.lambda.internal for
// instances-lambda-us-tx-1). When several names end with it, the host the
// text gives under that label tells them apart: the name holding the most
// of the host's other labels ("instances-aws-us-east-1", not
// "aws-api-us-east-1", for us-east-1.aws.instances.internal), when one
// holds more than the others.
func tailOf(label string, names []string, text string) string {
	if len(label) < 3 {
		return ""
	}
	tail := "-" + strings.ToLower(label)
	var found []string
	for _, c := range names {
		if strings.HasSuffix(strings.ToLower(c), tail) && !slices.Contains(found, c) {
			found = append(found, c)
		}
	}
	switch len(found) {
	case 0:
		return ""
	case 1:
		return found[0]
	}
	labels := hostLabels(label, text)
	if len(labels) == 0 {
		return ""
	}
	best, most, tie := "", 0, false
	for _, c := range found {
		n := 0
		for _, part := range strings.Split(strings.ToLower(c[:len(c)-len(tail)]), "-") {
			if slices.Contains(labels, part) {
				n++
			}
		}
		switch {
		case n > most:
			best, most, tie = c, n, false
		case n == most:
			tie = true
		}
	}
	if most == 0 || tie {
		return ""
	}
	return best
}

// hostLabels lists, lowercased, the labels after label of the first host
// in text that begins with it ("aws", "instances", "internal" of
// us-east-1.aws.instances.internal for us-east-1).
func hostLabels(label, text string) []string {
	low, lab := strings.ToLower(text), strings.ToLower(label)+"."
	for i := 0; ; {
		j := strings.Index(low[i:], lab)
		if j < 0 {
			return nil
		}
		j += i
		if j == 0 || !isHostByte(low[j-1]) {
			end := j + len(lab)
			for end < len(low) && isHostByte(low[end]) {
				end++
			}
			if host := strings.Trim(low[j+len(lab):end], ".-"); host != "" {
				return strings.Split(host, ".")
			}
		}
		i = j + 1
	}
}

func isHostByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.'
}

// knownNames lists the services either period knows (known), once each;
// resolveNames adds the names the votes give.
func knownNames(w, b *period) []string {
	var out []string
	for _, p := range [...]*period{w, b} {
		for svc := range p.services {
			if known(w, b, svc) && !slices.Contains(out, svc) {
				out = append(out, svc)
			}
		}
	}
	slices.Sort(out)
	return out
}

// novelty is 1 for an error signature the baseline never had, falling to
// 0 for one the baseline had at the same rate or more: the share of the
// window's count that the baseline's rate does not explain. A failing
// trace whose first error is the service's usual noise is no news.
//
// The counts are of the signature's failing lines (errors and warnings)
// when the window's are: a template that is also the service's routine
// line ("POST /jobs/claim 201 5ms", "POST /jobs/claim 503 6ms") is new as
// a failure when the baseline logged it only as a success.
func novelty(w, b *period, svc string, sig schema.Signature) float64 {
	if b.records == 0 || sig == "" {
		return 1
	}
	obs, failing := 1.0, false
	if ws := w.bySignature(svc, sig); ws != nil {
		obs = float64(ws.count)
		if n := ws.errors + ws.warns; n > 0 {
			obs, failing = float64(n), true
		}
	}
	bs := b.bySignature(svc, sig)
	if bs != nil && failing && bs.errors+bs.warns == 0 {
		bs = nil // never a failure there
	}
	if bs == nil && !b.off[ruleWrappedKnown] {
		if ws := w.bySignature(svc, sig); ws != nil {
			bs = wrappedIn(b, svc, ws.template) // the same error, wrapped otherwise
		}
	}
	if bs == nil {
		// Absent from the baseline: new as surely as the baseline was long
		// enough to show it at the window's rate (exposure).
		return exposure(obs/w.minutes(), b.minutes())
	}
	// The share of the window's count beyond what the baseline rate
	// explains. A short baseline knows its rate only roughly (three lines
	// in one minute may be a rate of one or of eight), so the rate taken
	// is the highest the baseline's count makes plausible (poissonUpper),
	// and the window's count must exceed what that rate explains by two
	// standard deviations of its own Poisson noise.
	n := bs.count
	if failing {
		n = bs.errors + bs.warns
	}
	exp := poissonUpper(float64(n)) / b.minutes() * w.minutes()
	sd := math.Sqrt(exp)
	return max(0, min(1, (obs-exp-2*sd)/obs))
}

// ruleWrappedKnown: an error the baseline logged in another wrapping is
// not new. A service's scheduled job that fails with "scheduled job sync
// failed: failed to send audit event: audit-sink returned 413" and its
// requests that log "failed to send audit event: audit-sink returned 413"
// report one error; a short baseline that happened to hold only the first
// form knows the second's rate by it.
//
// Condition: a window's failing signature absent from the baseline (or
// never a failure there) whose template, at least minWrapped bytes long,
// is contained in, or contains, templates of the same service's baseline
// failing lines: their counts, together, are its baseline count.
// Scenario: testdata/wrapped_known.txtar (and TestNoveltyWrapped).
const ruleWrappedKnown = "wrapped_known"

// minWrapped is the shortest template whose wrappings count as the same
// error: a bare "timeout" is in too many.
const minWrapped = 24

// wrappedIn is the baseline's failing lines of svc whose template contains
// tmpl or is contained in it, summed into one stat; nil when none.
func wrappedIn(b *period, svc, tmpl string) *templateStat {
	sp := b.services[svc]
	if sp == nil || len(tmpl) < minWrapped {
		return nil
	}
	key := [2]string{svc, tmpl}
	if out, ok := b.wrapped[key]; ok {
		return out
	}
	if b.wrapped == nil {
		b.wrapped = map[[2]string]*templateStat{}
	}
	var out *templateStat
	for t, ts := range sp.templates {
		if ts.errors+ts.warns == 0 || len(t) < minWrapped || !strings.Contains(t, tmpl) && !strings.Contains(tmpl, t) {
			continue
		}
		if out == nil {
			out = &templateStat{template: tmpl}
		}
		out.count += ts.count
		out.errors += ts.errors
		out.warns += ts.warns
	}
	b.wrapped[key] = out
	return out
}

// poissonUpper is the upper end of the 97.5% one-sided confidence range
// of a Poisson mean of which n was observed (Wilson and Hilferty's
// approximation, within 1% of the exact bound from n = 0): 3.7 for none,
// 8.8 for 3, 60 for 45. What a count of one baseline minute allows its
// rate to be is much more than the count; of an hour, hardly more.
func poissonUpper(n float64) float64 {
	m := n + 1
	c := 1 - 1/(9*m) + 1.96/(3*math.Sqrt(m))
	return m * c * c * c
}

// exposure is the chance that a baseline of the given minutes of data
// holds at least one record of something that occurs perMinute times a
// minute (Poisson): how surely its absence there says it is new. A
// template the window writes twice a minute is absent by chance from one
// minute of baseline one time in seven (exposure 0.86), from an hour
// never.
func exposure(perMinute, minutes float64) float64 {
	return 1 - math.Exp(-perMinute*minutes)
}

// keptServing reports whether svc, observable in both periods, went on
// serving in the window as it did in the baseline: about as many records
// per minute, no more errors of its own, and no operation whose behaviour
// changed. An error that points at such a service (a refused connection,
// a timeout) says more about the caller's side of the call than about it.
func keptServing(w, b *period, svc string) bool {
	ws, bs := w.services[svc], b.services[svc]
	if ws == nil || bs == nil || bs.records < minServing || ws.records < minServing {
		return false
	}
	rw, rb := float64(ws.records)/w.minutes(), float64(bs.records)/b.minutes()
	if rw < rb/2 {
		return false
	}
	// Errors that followed its own failed calls count here: its callers
	// saw them.
	ew, eb := float64(ws.ownErrors+ws.followedErrors)/w.minutes(), float64(bs.ownErrors)/b.minutes()
	if (ew+0.5)/(eb+0.5) >= 2 {
		return false
	}
	if latencyRatio(ws, bs) >= slowerServing {
		return false
	}
	for t, ts := range ws.templates {
		// A new line of its own trouble (memory, GC, pools) says it did
		// not serve as usual by what it says; any other new line, by
		// how surely the baseline would have held it.
		if ts.errors+ts.warns > 0 && (ts.own() || ts.followed) && bs.templates[t] == nil &&
			(ownTrouble(ts.kind) || absentSure(ts.errors+ts.warns, w.minutes(), b.minutes())) {
			return false
		}
	}
	return len(behaviourShifts(w, b, svc)) == 0
}

// absentSure reports whether n lines of a template in a window of wMin
// minutes, none in a baseline of bMin minutes of data, are surely new: at
// one rate over both, each of the n lines falls in the window with
// probability wMin/(wMin+bMin), all of them with that to the n (a Poisson
// count conditioned on its total), at least minDecades unlikely. Fourteen
// lines over ten minutes, none in one minute of baseline, are a rate a
// minute may well miss (0.6 decades); none in fifteen minutes, 5.6.
func absentSure(n int, wMin, bMin float64) bool {
	if bMin <= 0 {
		return false
	}
	return float64(n)*math.Log10((wMin+bMin)/wMin) >= minDecades
}

// seenSteady reports whether svc was seen serving as in the baseline: by
// its own records when it has them (keptServing), else, for a dependency
// known only from its callers' client spans (a third party, a database),
// by those: called as often, no more failed calls and no slower.
func seenSteady(w, b *period, svc string) bool {
	ws, bs := w.services[svc], b.services[svc]
	if ws == nil || bs == nil {
		return false
	}
	if ws.records >= minServing && bs.records >= minServing {
		return keptServing(w, b, svc)
	}
	if ws.peerNs.count() < minServing || bs.peerNs.count() < minServing {
		return false
	}
	if float64(ws.peerNs.count())/w.minutes() < float64(bs.peerNs.count())/b.minutes()/2 {
		return false // called half as often: callers' breakers keep away from it
	}
	ew, eb := float64(ws.peerErrors)/w.minutes(), float64(bs.peerErrors)/b.minutes()
	return (ew+0.5)/(eb+0.5) < 2 && latencyRatio(ws, bs) < slowerServing
}

// slowerServing is the rise of p95 latency at which a service no longer
// serves as usual.
const slowerServing = 2.0

// latencyRatio is how much the p95 self time of a service's spans rose,
// or the latency its callers see when it has no spans of its own; 1 when
// there is too little to tell.
func latencyRatio(w, b *serviceProfile) float64 {
	ws, bs := &w.selfNs, &b.selfNs
	if ws.count() < 5 || bs.count() < 5 {
		ws, bs = &w.peerNs, &b.peerNs
	}
	if ws.count() < 5 || bs.count() < 5 {
		return 1
	}
	return (ws.quantile(0.95) + 1e6) / (bs.quantile(0.95) + 1e6) // 1 ms floor against noise of tiny spans
}

// minServing is how many records a service must have in each period for
// keptServing to judge it.
const minServing = 20

// anyError reports whether any record of a trace is an error.
func anyError(recs []schema.Record) bool {
	for i := range recs {
		if recs[i].IsError() {
			return true
		}
	}
	return false
}

// countAfterCalls counts, for each service of a failing trace, its vague
// errors (a bare 5xx, an error nothing recognises) that came after one of
// its calls to a dependency failed.
func (p *period) countAfterCalls(res *correlate.Result) {
	var calls map[string]time.Time // service -> its first failed call
	for _, f := range res.Failures {
		if f.Class.PointsElsewhere() && f.Target != "" && f.Target != f.Service {
			if t, ok := calls[f.Service]; !ok || f.Time.Before(t) {
				if calls == nil {
					calls = map[string]time.Time{}
				}
				calls[f.Service] = f.Time
			}
		}
	}
	if calls == nil {
		return
	}
	for _, f := range res.Failures {
		t, ok := calls[f.Service]
		if !ok || !f.Error || f.Time.Before(t) || !f.Class.Vague() {
			continue
		}
		if ts := p.bySignature(f.Service, f.Signature); ts != nil {
			ts.after++
		}
	}
}
