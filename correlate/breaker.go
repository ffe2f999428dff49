package correlate

import (
	"context"
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/faultline/faultline/schema"
)

// WindowStore is a Store that also reads the records of a time window, as
// both store backends do. Analyze uses it to follow an open circuit
// breaker to the earlier traces that tripped it.
//
// WindowRecords yields the records of q (From inclusive, To exclusive,
// one service when q.Service is set, errors and warnings only when
// q.ErrorsOnly), ordered by time, at most q.Limit of them (the earliest).
type WindowStore interface {
	Store
	WindowRecords(ctx context.Context, q schema.WindowQuery) iter.Seq2[schema.Record, error]
}

// Limits of following an open breaker across traces.
const (
	// breakerLookback is how far before the fast failure the traces that
	// tripped the breaker are looked for: a breaker stays open for tens of
	// seconds and re-opens on failed probes.
	breakerLookback = 2 * time.Minute
	// breakerLookbackFar is how far back a breaker that names nothing is
	// followed when the last breakerLookback show only its refusals: it
	// has stayed open, re-opening on failed probes, since failures older
	// than that tripped it.
	breakerLookbackFar = 10 * time.Minute
	// breakerTraces is how many of the latest tripping traces are analysed.
	breakerTraces = 5
	// breakerCandidates caps the traces read to find them: those in which
	// the dependency only failed fast do not count.
	breakerCandidates = 20
	// breakerDepth caps breakers followed behind breakers.
	breakerDepth = 3
	// breakerScan caps the error records of the dependency read from the
	// window; breakerScanAll those of every service, read when the
	// dependency's records carry no service field.
	breakerScan    = 400
	breakerScanAll = 4000
)

// breakerLead is what a fast failure of an open breaker leaves to follow
// across traces: the protected dependency, silent in this trace, and when
// the breaker refused the call.
type breakerLead struct {
	dep   string
	at    time.Time
	named bool   // the failure named dep; else dep is the failing service itself
	by    string // the service whose breaker refused, when it named dep
	// key is what a breaker that names nothing says it is kept for ("the
	// circuit breaker for data-lake"), "" when it says nothing
	// (breakerKey; followed by breaker_lookback_key).
	key string
	// guards counts, for a breaker that names nothing, the dependencies
	// that dep's own breaker lines of the lookback name ("circuit
	// 'identityProvider' opened"), as its own failures are read.
	guards map[string]int
}

// ruleBreakerFollow follows an open breaker to the traces that tripped it.
//
// Condition: the suspect is only the silent dependency of a fast failure
// (Result.lead: an open breaker, a full bulkhead; the failing service
// itself when the breaker names nothing). The rules of breakerRules find
// and weigh the earlier traces in which the dependency failed; the
// suspect becomes what they settle on, and keeps the dependency when they
// settle nothing. A breaker behind the new suspect is followed the same
// way, breakerDepth deep at most, never to a dependency already followed;
// hopRules adjust the suspect after each hop. The search behind a
// breaker looks back from the end of the tripQuantum of its fast failure,
// and is made once for all the traces whose leads fall in that quantum
// (StoreRules).
//
// Constants: breakerDepth, tripQuantum.
// Test: TestRules/breaker_follow (TestAnalyzeFollowsOpenBreakerToTrippingTraces,
// TestAnalyzeBreakerCountsWalksThroughASuspect for a breaker behind one).
const ruleBreakerFollow = "breaker_follow"

// followBreaker resolves a suspect that is only the silent dependency of
// an open breaker. The breaker opened because calls to that dependency
// failed in earlier traces; those traces, analysed in turn, say where the
// failure began. The suspect becomes the service most of the latest
// tripping traces point at, and keeps the dependency when none is found.
func followBreaker(ctx context.Context, st WindowStore, a *storeAnalysis) {
	res, opts := a.res, a.opts
	if res.lead == nil {
		return
	}
	var followed []string
	var prev trip
	ch := &tripChain{}
	for depth := 0; depth < breakerDepth && res.lead != nil && res.Suspect != nil; depth++ {
		lead := new(breakerLead)
		*lead = *res.lead // a copy: a remembered trip's next lead is shared
		res.lead = nil
		if slices.ContainsFunc(followed, func(d string) bool { return sameService(d, lead.dep) }) {
			return // the tripping traces name the same silent dependency
		}
		followed = append(followed, lead.dep)
		tr := a.memo.tripping(ctx, st, lead, opts, ch)
		if tr.err != nil {
			res.Warnings = append(res.Warnings, fmt.Sprintf(
				"cannot read the earlier traces that tripped the breaker on %s: %v", lead.dep, tr.err))
			return
		}
		if tr.suspect != "" {
			res.Suspect.Reason += tr.reason(lead)
			res.Suspect.Service = tr.suspect
			res.caller = tr.caller
		}
		h := &hop{lead: lead, tr: tr, prev: prev, depth: depth}
		for _, r := range hopRules() {
			if !opts.ruleOff(r.name) {
				r.apply(res, h)
			}
		}
		if tr.suspect == "" {
			return
		}
		prev = tr
		res.lead = tr.next
	}
	res.lead = nil
}

// hop is one breaker followed: its lead, what its tripping traces said,
// what those of the hop before said, and how deep it is (0 first).
type hop struct {
	lead  *breakerLead
	tr    trip
	prev  trip
	depth int
}

// tripSearch is what the rules of one hop share: the lead they follow,
// the traces already read (never read twice), the hits the lookbacks
// gathered and the name callers give the dependency, and the trip settled
// so far.
type tripSearch struct {
	lead *breakerLead
	opts Options
	memo *storeMemo // nil: nothing is remembered across searches
	seen map[schema.TraceID]bool
	hits []traceHit
	trip trip
}

// tripping applies breakerRules to lead: it analyses the latest traces
// before the end of lead.at's tripQuantum in which lead.dep failed (or,
// when it left no failure, in which a caller's call to it failed), other
// than those the breakers followed before it in ch weighed, and returns
// the suspect most of them name, how many did, of how many, one example
// trace, and the lead of the winner when it is itself a silent breaker
// dependency. It sets lead.guards and adds the search to ch. A search
// already made for the same chain of leads, each in the same tripQuantum,
// is not made again (m nil: always made); a failed one is not remembered.
func (m *storeMemo) tripping(ctx context.Context, st WindowStore, lead *breakerLead, opts Options, ch *tripChain) trip {
	at := quantumEnd(lead.at)
	key := ch.key + memoKey(ruleBreakerFollow, lead.dep, lead.by, lead.named, lead.key, at)
	f, err := memoized(m, key, func() (tripFound, error) {
		l := &breakerLead{dep: lead.dep, at: at, named: lead.named, by: lead.by, key: lead.key}
		seen := maps.Clone(ch.seen)
		if seen == nil {
			seen = map[schema.TraceID]bool{}
		}
		tr := search(ctx, st, l, opts, seen, m)
		return tripFound{trip: tr, guards: l.guards, seen: seen}, tr.err
	})
	if err != nil {
		return trip{err: err}
	}
	lead.guards = f.guards
	ch.key, ch.seen = key, f.seen
	return f.trip
}

// tripFound is a search's outcome: the trip, the dependencies the
// breaker's own lines named as it read them (breakerLead.guards), and the
// traces weighed by it and the searches before it in its chain.
type tripFound struct {
	trip   trip
	guards map[string]int
	seen   map[schema.TraceID]bool
}

// tripChain is the breakers followed so far for one trace: the key of
// their searches, and the traces they weighed, which a breaker behind them
// does not weigh again.
type tripChain struct {
	key  string
	seen map[schema.TraceID]bool
}

// search applies breakerRules to lead, before lead.at, leaving out the
// traces of seen and adding those it weighs.
func search(ctx context.Context, st WindowStore, lead *breakerLead, opts Options, seen map[schema.TraceID]bool, m *storeMemo) trip {
	s := &tripSearch{lead: lead, opts: opts, seen: seen, memo: m}
	for _, r := range breakerRules() {
		if opts.ruleOff(r.name) {
			continue
		}
		if err := r.apply(ctx, st, s); err != nil {
			return trip{err: err}
		}
	}
	return s.trip
}

// trip is what the traces that tripped a breaker say.
type trip struct {
	suspect string // "" when they settle nothing
	votes   int    // traces naming suspect, or going through it
	via     int    // of votes, those going through it to a deeper one
	of      int    // traces that named a suspect
	example schema.TraceID
	next    *breakerLead  // suspect's own lead, when it is a silent dependency again
	caller  *silentCaller // whose failed call named suspect, when it was silent
	// guard: suspect is the dependency the breaker's own lines name, not
	// what tripping traces point at.
	guard bool
	// rules name what settled suspect: the lookbacks that found the
	// traces backing it and the vote rule, or breaker_guard.
	rules []string
	// walks are the walks of the tripping traces that were weighed, hits
	// the failures the lookbacks found.
	walks []walked
	hits  []traceHit
	err   error // reading the store failed
}

// reason is the clause a settled trip adds to the suspect's reason.
func (tr *trip) reason(lead *breakerLead) string {
	if tr.guard {
		return fmt.Sprintf("; no earlier trace tells what tripped the breaker of %s, but its own refusals name %s (%d of them in the minutes before)",
			lead.dep, tr.suspect, tr.votes) + ruleTag(tr.rules...)
	}
	through := ""
	if tr.via > 0 {
		through = fmt.Sprintf(" (%d of them through it, to a failure further down)", tr.via)
	}
	what, of := lead.dep, lead.dep
	if lead.key != "" && slices.Contains(tr.rules, ruleLookbackKey) {
		// A keyed breaker counted failures of its key's work.
		what, of = lead.key+"'s work", "work of "+lead.key
	}
	latest := fmt.Sprintf("%d of the latest %d traces where %s failed point", tr.votes, tr.of, what)
	if tr.of == 1 {
		latest = fmt.Sprintf("the latest trace where %s failed points", what)
	}
	return fmt.Sprintf("; the breaker opened on earlier failures of %s: %s at %s%s (e.g. trace %s)",
		of, latest, tr.suspect, through, tr.example) + ruleTag(tr.rules...)
}

// traceHit is a trace in which a dependency failed, when, and the
// service whose failure to start the suspect walk from.
type traceHit struct {
	id      schema.TraceID
	at      time.Time
	from    string
	vague   bool // a bare 5xx, an error nothing recognises, naming nothing
	body    string
	refused bool   // the dependency failed fast in the trace
	by      string // the lookback that found it
	kind    schema.Kind
}

// latestHits sorts hits latest first and keeps the first of each trace,
// at most breakerCandidates.
func latestHits(hits []traceHit) []traceHit {
	slices.SortFunc(hits, func(a, b traceHit) int { return b.at.Compare(a.at) })
	return uniqueHits(hits)
}

// uniqueHits keeps the first hit of each trace, at most breakerCandidates.
func uniqueHits(hits []traceHit) []traceHit {
	out := hits[:0]
	for _, h := range hits {
		if !slices.ContainsFunc(out, func(o traceHit) bool { return o.id == h.id }) {
			out = append(out, h)
			if len(out) == breakerCandidates {
				break
			}
		}
	}
	return out
}

// hitCandidate is one record a lookback read, classified, before the hit
// filters.
type hitCandidate struct {
	rec  *schema.Record
	svc  string
	kind schema.Kind
	hint string
}

// causeScan is what the hit filters of one lookback's read share: its
// query, the lead, and the traces in which lead.dep failed fast.
type causeScan struct {
	q    schema.WindowQuery
	lead *breakerLead
	fast map[schema.TraceID]bool
}

// causeHits reads the records of q that are failures of service s.lead.dep,
// or (when q reads every service) of calls to it, in traces not yet seen,
// less what hitFilters leave out; by names the lookback.
func causeHits(ctx context.Context, st WindowStore, s *tripSearch, q schema.WindowQuery, by string) ([]traceHit, error) {
	dep := s.lead.dep
	filters := slices.DeleteFunc(hitFilters(), func(f hitFilter) bool { return s.opts.ruleOff(f.name) })
	sc := &causeScan{q: q, lead: s.lead, fast: map[schema.TraceID]bool{}}
	var hits []traceHit
	for r, err := range st.WindowRecords(ctx, q) {
		if err != nil {
			return hits, err
		}
		if r.TraceID == "" || s.seen[r.TraceID] {
			continue
		}
		svc := serviceOf(&r)
		if svc == "" {
			continue
		}
		k, hint := classifyWithHint(&r, true)
		if k == "" {
			continue
		}
		c := hitCandidate{rec: &r, svc: svc, kind: k, hint: hint}
		if slices.ContainsFunc(filters, func(f hitFilter) bool { return f.skip != nil && f.skip(&c, sc) }) {
			continue
		}
		if !sameService(svc, dep) && (q.Service != "" || hint == "" || !sameService(externalName(hint), dep)) {
			continue
		}
		hits = append(hits, traceHit{id: r.TraceID, at: r.Time, from: svc, vague: k.Vague() && hint == "", body: r.Body, by: by, kind: k})
	}
	hits = slices.DeleteFunc(hits, func(h traceHit) bool {
		return slices.ContainsFunc(filters, func(f hitFilter) bool { return f.drop != nil && f.drop(&h, sc) })
	})
	for i := range hits {
		hits[i].refused = sc.fast[hits[i].id]
	}
	return hits, nil
}

// sameService reports whether two names denote one service, by the rules
// of resolveHint: any case, letters and digits only, the first DNS label,
// or one of at least four letters beginning the other, which adds only
// generic words ("shipping" and "shipping-service"; see samePrefix).
func sameService(a, b string) bool {
	if strings.EqualFold(a, b) {
		return true
	}
	la, lb := firstLabel(a), firstLabel(b)
	na, nb := alnum(la), alnum(lb)
	if na == "" || nb == "" {
		return false
	}
	if na == nb {
		return true
	}
	return min(len(na), len(nb)) >= 4 && samePrefix(na, nb)
}

// SameService is sameService for the incident analysis (rootcause): two
// names of one service, told apart only by case, punctuation or a generic
// suffix ("payment-provider", "payment-provider-api").
func SameService(a, b string) bool { return sameService(a, b) }

func firstLabel(s string) string {
	if i := strings.IndexByte(s, '.'); i > 0 && !isIPv4(s) {
		return s[:i]
	}
	return s
}

// usualBefore is the stretch before the breaker's lookback in which a
// dependency's usual rate of an error is measured.
const usualBefore = time.Hour

// usualError reports whether svc logged errors of signature sig in the
// breaker's lookback before at no more often than in the hour before
// that: the noise a service always makes, not what tripped a breaker now.
// Answers are cached in seen.
func usualError(ctx context.Context, st WindowStore, svc string, sig schema.Signature, at time.Time,
	seen map[schema.Signature]bool) (bool, error) {
	if sig == "" {
		return false, nil
	}
	if u, ok := seen[sig]; ok {
		return u, nil
	}
	of := func(r *schema.Record) bool { return signatureOf(r) == sig }
	rise, err := lineRise(ctx, st, svc, at, breakerLookback, usualBefore, of)
	if err != nil {
		return false, err
	}
	usual := rise.earlier > 0 && !rise.rose()
	if usual {
		// An error that began with a fault some minutes ago has its
		// rate over the earlier stretch too, when the service logged
		// nothing before it: it must also have come, not much less often,
		// in the oldest part of what the store holds.
		if usual, err = steadySince(ctx, st, svc, at, rise, of); err != nil {
			return false, err
		}
	}
	seen[sig] = usual
	return usual, nil
}

// steadySince reports whether the lines that match came in the oldest
// quarter of what the store holds of the stretch before at's recent one at
// least a third as often as they usually do: in the recent stretch or the
// earlier one, whichever rate is higher. An error that began minutes ago
// and stopped in the recent stretch (a breaker now keeps the work away
// from the service that failed it) is no usual one for coming never since.
func steadySince(ctx context.Context, st WindowStore, svc string, at time.Time, r rise,
	match func(*schema.Record) bool) (bool, error) {
	end := at.Add(-r.recentLen)
	from, err := firstTime(ctx, st, end.Add(-usualBefore), end)
	if err != nil {
		return false, err
	}
	quarter := end.Sub(from) / 4
	if quarter <= 0 {
		return false, nil
	}
	n, _, err := countLines(ctx, st, svc, from, from.Add(quarter), match)
	if err != nil {
		return false, err
	}
	return 3*float64(n)/quarter.Minutes() >= max(r.perMinute(true), r.perMinute(false)), nil
}

// firstTime is the time of st's first record in [from, to), from when it
// holds none.
func firstTime(ctx context.Context, st WindowStore, from, to time.Time) (time.Time, error) {
	for rec, err := range st.WindowRecords(ctx, schema.WindowQuery{From: from, To: to, Limit: 1}) {
		if err != nil {
			return from, err
		}
		return rec.Time, nil
	}
	return from, nil
}
