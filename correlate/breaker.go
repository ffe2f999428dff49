package correlate

import (
	"context"
	"fmt"
	"iter"
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
	// guards counts, for a breaker that names nothing, the dependencies
	// that dep's own breaker lines of the lookback name ("circuit
	// 'identityProvider' opened"), as its own failures are read.
	guards map[string]int
}

// followBreaker resolves a suspect that is only the silent dependency of
// an open breaker. The breaker opened because calls to that dependency
// failed in earlier traces; those traces, analysed in turn, say where the
// failure began. The suspect becomes the service most of the latest
// tripping traces point at, and keeps the dependency when none is found.
func followBreaker(ctx context.Context, st WindowStore, res *Result, opts Options) {
	seen := map[schema.TraceID]bool{res.TraceID: true}
	var followed []string
	var prev trip
	for depth := 0; depth < breakerDepth && res.lead != nil && res.Suspect != nil; depth++ {
		lead := res.lead
		res.lead = nil
		if slices.ContainsFunc(followed, func(d string) bool { return sameService(d, lead.dep) }) {
			return // the tripping traces name the same silent dependency
		}
		followed = append(followed, lead.dep)
		tr := tripping(ctx, st, lead, opts, seen)
		if tr.err != nil {
			res.Warnings = append(res.Warnings, fmt.Sprintf(
				"cannot read the earlier traces that tripped the breaker on %s: %v", lead.dep, tr.err))
			return
		}
		if tr.suspect != "" {
			through := ""
			if tr.via > 0 {
				through = fmt.Sprintf(" (%d of them through it, to a failure further down)", tr.via)
			}
			if tr.guard {
				res.Suspect.Reason += fmt.Sprintf("; no earlier trace tells what tripped the breaker of %s, but its own refusals name %s (%d of them in the minutes before)",
					lead.dep, tr.suspect, tr.votes)
			} else {
				res.Suspect.Reason += fmt.Sprintf("; the breaker opened on earlier failures of %s: %d of the latest %d traces where %s failed point at %s%s (e.g. trace %s)",
					lead.dep, tr.votes, tr.of, lead.dep, tr.suspect, through, tr.example)
			}
			res.Suspect.Service = tr.suspect
			res.caller = tr.caller
		}
		if a := tr.alias; a != "" && a != res.Suspect.Service && sameService(a, res.Suspect.Service) {
			res.Suspect.Reason += fmt.Sprintf("; calls to %s name it %s", res.Suspect.Service, a)
			res.Suspect.Service = a
		}
		if tr.suspect == "" {
			if d := prev.deeper; d != "" && depth > 0 {
				// The traces that tripped this breaker were read for the
				// one before; those of them that went through it said
				// where.
				res.Suspect.Reason += fmt.Sprintf("; no other trace tells what tripped the breaker on %s, but %d of those that went through it went on to %s",
					lead.dep, prev.deeperVotes, d)
				res.Suspect.Service = d
			}
			return
		}
		prev = tr
		res.lead = tr.next
	}
	res.lead = nil
}

// tripping analyses the latest traces before lead.at in which lead.dep
// failed (or, when it left no failure, in which a caller's call to it
// failed), and returns the suspect most of them name, how many did, of
// how many, one example trace, and the lead of the winner when it is
// itself a silent breaker dependency.
func tripping(ctx context.Context, st WindowStore, lead *breakerLead, opts Options,
	seen map[schema.TraceID]bool) trip {
	hits, alias, err := trippingTraces(ctx, st, lead, seen)
	if err != nil {
		return trip{err: err}
	}
	tr := weighTripping(ctx, st, lead, opts, seen, hits, alias)
	if tr.err == nil && tr.suspect == "" && !lead.named {
		q := schema.WindowQuery{From: lead.at.Add(-breakerLookbackFar), To: lead.at.Add(-breakerLookback),
			Service: lead.dep, ErrorsOnly: true, Limit: breakerScanAll}
		if hits, _, err = causeHits(ctx, st, q, lead, seen); err != nil {
			return trip{err: err}
		}
		slices.SortFunc(hits, func(a, b traceHit) int { return b.at.Compare(a.at) })
		tr = weighTripping(ctx, st, lead, opts, seen, uniqueHits(hits), alias)
	}
	if tr.err == nil && tr.suspect == "" && !lead.named && len(lead.guards) > 0 {
		// No trace tells what tripped it, but the service said which
		// dependency its breaker guards: follow that one.
		g := ""
		for n, c := range lead.guards {
			if g == "" || c > lead.guards[g] || c == lead.guards[g] && n < g {
				g = n
			}
		}
		return trip{suspect: g, votes: lead.guards[g], guard: true,
			next: &breakerLead{dep: g, at: lead.at, named: true, by: lead.dep}}
	}
	return tr
}

// weighTripping analyses the tripping traces of hits (the latest first)
// and weighs where they point.
func weighTripping(ctx context.Context, st WindowStore, lead *breakerLead, opts Options,
	seen map[schema.TraceID]bool, hits []traceHit, alias string) trip {
	votes := map[string]int{}
	var order []string
	examples := map[string]schema.TraceID{}
	leads := map[string]*breakerLead{}
	callers := map[string]*silentCaller{}
	usualSigs := map[schema.Signature]bool{}
	var walks []walked
	total := 0
	for _, h := range hits {
		if total == breakerTraces {
			break
		}
		seen[h.id] = true
		var recs []schema.Record
		for r, err := range st.TraceRecords(ctx, h.id, DefaultRecordLimit) {
			if err != nil {
				return trip{err: err}
			}
			recs = append(recs, r)
		}
		ro := Options{MaxSkew: opts.MaxSkew, SkewTolerance: opts.SkewTolerance, SkipTimeline: true, suspectFrom: h.from}
		if !sameService(h.from, lead.dep) {
			ro.startAt = &hitRef{svc: h.from, at: h.at, body: h.body}
		}
		r := AnalyzeRecords(recs, ro)
		if r.fastOnly || r.Suspect == nil || r.Suspect.Service == "" {
			continue
		}
		if sameService(h.from, lead.dep) && sameService(r.Suspect.Service, lead.dep) && r.Origin != nil {
			if len(r.Cascade) == 0 {
				// The dependency failed, but no caller did: an error it logs
				// while still answering does not trip its callers' breakers.
				continue
			}
			if isWeak(r.Origin.Class) {
				usual, err := usualError(ctx, st, lead.dep, r.Origin.Signature, lead.at, usualSigs)
				if err != nil {
					return trip{err: err}
				}
				if usual {
					continue // an error it logs all day did not trip the breaker now
				}
			}
		}
		if isWeak(r.Suspect.Kind) && r.ownSig != "" {
			// The walk settled on an error that need not fail a request (a
			// rejected token, a locale it cannot resolve): one its service
			// logs all day is the noise beside what tripped the breaker,
			// not its cause.
			usual, err := usualError(ctx, st, r.Suspect.Service, r.ownSig, lead.at, usualSigs)
			if err != nil {
				return trip{err: err}
			}
			if usual {
				continue
			}
		}
		s := r.Suspect.Service
		if !sameService(h.from, lead.dep) && sameService(s, lead.dep) && r.ownSig == "" &&
			r.Suspect.Kind != schema.KindRateLimit && r.Suspect.Kind != schema.KindConnectionRefused {
			// A caller's call to the dependency failed (timed out, got a
			// 5xx), and the trace shows nothing of the dependency's own:
			// no news. A 429 or a refused connection is its own doing.
			continue
		}
		if sameService(s, lead.dep) && namesNoCallee(r.Suspect.Kind) {
			// The walk ended at the dependency's own symptom that names no
			// callee (a timeout of something, its own breaker refusing):
			// it says no more than the breaker did.
			continue
		}
		if lead.by != "" && sameService(s, lead.by) {
			// A walk that comes back to the breaker's own service (its
			// signal the only one before a silent failure) says nothing
			// of what tripped the breaker.
			continue
		}
		if k := slices.IndexFunc(order, func(o string) bool { return sameService(o, s) }); k >= 0 && order[k] != s {
			// One dependency under two names (a breaker's short name and
			// the peer's service name): count it once, by the longer name.
			if len(s) > len(order[k]) {
				votes[s], examples[s], leads[s], callers[s] = votes[order[k]], examples[order[k]], leads[order[k]], callers[order[k]]
				delete(votes, order[k])
				order[k] = s
			} else {
				s = order[k]
			}
		}
		if votes[s] == 0 {
			order = append(order, s)
			examples[s] = h.id
			leads[s] = r.lead
			callers[s] = r.caller
		}
		votes[s]++
		total++
		walks = append(walks, walked{suspect: s, path: slices.DeleteFunc(r.path, func(p string) bool {
			return sameService(p, lead.dep) || sameService(p, s) || sameService(p, h.from)
		}), blind: namesNoCallee(r.Suspect.Kind) && !isFastFailure(r.Suspect.Kind)})
	}
	// A trace whose walk went through a suspect of others on to a deeper
	// one backs it too: the one most of them reach or pass is where the
	// walk goes, then on down to a suspect at least half of them reach
	// through it, while there is one. A shallower service only passed
	// their failure on.
	best := ""
	for _, s := range order {
		if best == "" || reach(walks, s, "") > reach(walks, best, "") {
			best = s
		}
	}
	root := best
	for done := []string{best}; best != ""; {
		next := ""
		// Walks that stopped at best on a symptom naming no callee (a
		// timeout of something) would have gone on if they could: they
		// neither back nor oppose going deeper.
		decided := total - blindAt(walks, best)
		for _, s := range order {
			if n := reach(walks, s, best); !slices.Contains(done, s) && n > 0 && 2*n >= decided &&
				(next == "" || n > reach(walks, next, best)) {
				next = s
			}
		}
		if next == "" {
			break
		}
		best = next
		done = append(done, best)
	}
	score := func(s string) int { return reach(walks, s, "") }
	// A breaker that named its dependency keeps it as the suspect unless
	// most tripping traces point elsewhere.
	if best == "" || lead.named && 2*score(root) <= total {
		return trip{alias: alias}
	}
	deeper, deeperVotes := "", 0
	for _, s := range order {
		if n := reach(walks, s, best); !sameService(s, best) && n > deeperVotes {
			deeper, deeperVotes = s, n
		}
	}
	return trip{suspect: best, votes: score(best), via: score(best) - votes[best], of: total, example: examples[best], next: leads[best],
		deeper: deeper, deeperVotes: deeperVotes,
		caller: callers[best], alias: alias}
}

// walked is where one tripping trace's suspect walk ended, and the
// services it went through on the way from the breaker's dependency;
// blind when it ended on a symptom that names no callee and leaves no
// breaker to follow (a timeout of something).
type walked struct {
	suspect string
	path    []string
	blind   bool
}

// namesNoCallee reports whether a suspect of kind k, settled on with no
// failing dependency, is a symptom that points at a callee it does not
// name (a timeout, an open breaker); a refused connection is the refuser's
// own doing.
func namesNoCallee(k schema.Kind) bool {
	return k.PointsElsewhere() && k != schema.KindConnectionRefused
}

// blindAt counts the blind walks that ended at s.
func blindAt(walks []walked, s string) int {
	n := 0
	for _, w := range walks {
		if w.blind && sameService(w.suspect, s) {
			n++
		}
	}
	return n
}

// reach counts the walks that end at s or go through it, of those that
// go through under ("" any).
func reach(walks []walked, s, under string) int {
	n := 0
	for _, w := range walks {
		in := sameService(w.suspect, s) || slices.ContainsFunc(w.path, func(p string) bool { return sameService(p, s) })
		if in && (under == "" || slices.ContainsFunc(w.path, func(p string) bool { return sameService(p, under) })) {
			n++
		}
	}
	return n
}

// trip is what the traces that tripped a breaker say.
type trip struct {
	suspect string // "" when they settle nothing
	votes   int    // traces naming suspect, or going through it
	via     int    // of votes, those going through it to a deeper one
	// deeper is where most walks through suspect went on to, and how
	// many did: the suspect when its own breaker leads nowhere new.
	deeper      string
	deeperVotes int
	of          int // traces that named a suspect
	example     schema.TraceID
	next        *breakerLead  // suspect's own lead, when it is a silent dependency again
	caller      *silentCaller // whose failed call named suspect, when it was silent
	// alias is the dependency's name in the instrumentation of calls to
	// it (peer.service, a URL's host), when that differs from the lead's.
	alias string
	// guard: suspect is the dependency the breaker's own lines name, not
	// what tripping traces point at.
	guard bool
	err   error // reading the store failed
}

// traceHit is a trace in which a dependency failed, when, and the
// service whose failure to start the suspect walk from.
type traceHit struct {
	id      schema.TraceID
	at      time.Time
	from    string
	vague   bool // a bare 5xx, an error nothing recognises, naming nothing
	body    string
	refused bool // the dependency failed fast in the trace
}

// trippingTraces lists up to breakerCandidates traces, latest first, in
// which lead.dep failed in the lookback before lead.at, leaving out those
// already seen. When the dependency's own records show no failure (it
// logs nothing, or its lines carry no service field, or the breaker's
// name is short for it), the failures of every service in a shorter
// window that are of the dependency or of calls to it count.
func trippingTraces(ctx context.Context, st WindowStore, lead *breakerLead,
	seen map[schema.TraceID]bool) ([]traceHit, string, error) {
	q := schema.WindowQuery{From: lead.at.Add(-breakerLookback), To: lead.at, Service: lead.dep,
		ErrorsOnly: true, Limit: breakerScan}
	hits, alias, err := causeHits(ctx, st, q, lead, seen)
	if len(hits) > 0 && err == nil && lead.named {
		// The calls that tripped the breaker failed in callers: their
		// failures in the last seconds tell more than the dependency's
		// own errors, which may be about something else.
		all := q
		all.Service, all.From, all.Limit = "", lead.at.Add(-breakerLookback/4), breakerScanAll
		more, a, err2 := causeHits(ctx, st, all, lead, seen)
		// A call that the dependency refused fast (its own breaker open)
		// is the refusal's echo, not a failure that tripped the breaker.
		more = slices.DeleteFunc(more, func(h traceHit) bool { return h.refused || sameService(h.from, lead.dep) })
		hits, err = append(hits, more...), err2
		if len(a) > len(alias) {
			alias = a
		}
	}
	// Then every service's failures, the last seconds first: a
	// dependency that logs nothing shows only in its callers' calls.
	for _, back := range [...]time.Duration{breakerLookback / 4, breakerLookback} {
		if len(hits) > 0 || err != nil {
			break
		}
		q.Service, q.From, q.Limit = "", lead.at.Add(-back), breakerScanAll
		hits, alias, err = causeHits(ctx, st, q, lead, seen)
	}
	if err != nil {
		return nil, "", err
	}
	slices.SortFunc(hits, func(a, b traceHit) int { return b.at.Compare(a.at) })
	return uniqueHits(hits), alias, nil
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

// causeHits reads the records of q that are failures of service dep, or
// of calls to it, other than fast failures (an open breaker, a full
// bulkhead), in traces not yet seen.
func causeHits(ctx context.Context, st WindowStore, q schema.WindowQuery, lead *breakerLead,
	seen map[schema.TraceID]bool) ([]traceHit, string, error) {
	dep := lead.dep
	var hits []traceHit
	alias := ""
	fast := map[schema.TraceID]bool{} // traces in which dep failed fast
	for r, err := range st.WindowRecords(ctx, q) {
		if err != nil {
			return hits, alias, err
		}
		if r.TraceID == "" || seen[r.TraceID] {
			continue
		}
		// The failed status of the span serving a request says nothing of
		// why it failed; a client span's peer does.
		if r.Type == schema.TypeSpan && hintFromAttrs(&r) == "" {
			continue
		}
		svc := serviceOf(&r)
		if svc == "" {
			continue
		}
		k, hint := classifyWithHint(&r, true)
		if isFastFailure(k) && sameService(svc, dep) {
			// Its errors in that trace that name nothing (the 503 it
			// answered) are the breaker's refusal too.
			fast[r.TraceID] = true
			if n := externalName(hint); !lead.named && q.Service != "" && n != "" && !sameService(n, dep) {
				if lead.guards == nil {
					lead.guards = map[string]int{}
				}
				lead.guards[n]++
			}
		}
		if isFastFailure(k) || k == "" {
			continue
		}
		// A warning counts when it is about a call (a retry, a timeout),
		// not when it is about the service's own work (a slow query).
		if !r.IsError() && !k.PointsElsewhere() && hint == "" {
			continue
		}
		if !sameService(svc, dep) && (q.Service != "" || hint == "" || !sameService(externalName(hint), dep)) {
			continue
		}
		if n := externalName(hint); !sameService(svc, dep) && sameService(n, dep) && len(n) > len(alias) {
			alias = n // how callers name it: the peer.service, the URL's host
		}
		hits = append(hits, traceHit{id: r.TraceID, at: r.Time, from: svc, vague: k.Vague() && hint == "", body: r.Body})
	}
	if !lead.named {
		// A breaker that names nothing refuses at the service's own door:
		// the bare errors of the traces where it did so say nothing of
		// what tripped it.
		hits = slices.DeleteFunc(hits, func(h traceHit) bool { return h.vague && fast[h.id] })
	}
	for i := range hits {
		hits[i].refused = fast[hits[i].id]
	}
	return hits, alias, nil
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
// least a third as often as in the recent one.
func steadySince(ctx context.Context, st WindowStore, svc string, at time.Time, r rise,
	match func(*schema.Record) bool) (bool, error) {
	end := at.Add(-r.recentLen)
	from := end.Add(-usualBefore)
	for rec, err := range st.WindowRecords(ctx, schema.WindowQuery{From: from, To: end, Limit: 1}) {
		if err != nil {
			return false, err
		}
		from = rec.Time // the store's first record in the stretch
	}
	quarter := end.Sub(from) / 4
	if quarter <= 0 {
		return false, nil
	}
	n, _, err := countLines(ctx, st, svc, from, from.Add(quarter), match)
	if err != nil {
		return false, err
	}
	return 3*float64(n)/quarter.Minutes() >= r.perMinute(true), nil
}
