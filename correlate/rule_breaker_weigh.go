package correlate

import (
	"context"
	"slices"

	"github.com/faultline/faultline/schema"
)

// ruleBreakerWeigh analyses the tripping traces the lookbacks gathered and
// weighs where they point.
//
// Condition: always, after the lookbacks. The latest breakerTraces of the
// hits (one per trace, latest first, of at most breakerCandidates) that
// tripFilters keep are analysed, each walk starting at the failure of the
// hit (suspectFrom, startAt); a trace where the dependency only failed
// fast (Result.fastOnly) settles no suspect and does not count. Where the
// walks end and what they go through is then weighed by voteRules. A walk's suspect named under two names (a
// breaker's short name and the peer's service name) counts once, by the
// longer name.
//
// Constants: breakerTraces, breakerCandidates.
// Test: TestRules/breaker_weigh (TestAnalyzeFollowsOpenBreakerToTrippingTraces).
const ruleBreakerWeigh = "breaker_weigh"

func weighHits(ctx context.Context, st WindowStore, s *tripSearch) error {
	s.trip = weigh(ctx, st, s, latestHits(s.hits))
	s.trip.hits = s.hits
	return s.trip.err
}

// tripWalk is one tripping trace analysed, as the trip filters see it:
// the lead, the hit that led to the trace and the trace's result.
type tripWalk struct {
	lead *breakerLead
	hit  traceHit
	res  *Result
	// usual caches usualError's answers, by signature, for one weighing.
	usual map[schema.Signature]bool
}

// weigh analyses the tripping traces of hits (the latest first) and
// weighs where they point.
func weigh(ctx context.Context, st WindowStore, s *tripSearch, hits []traceHit) trip {
	lead := s.lead
	filters := slices.DeleteFunc(tripFilters(), func(f tripFilter) bool { return s.opts.ruleOff(f.name) })
	v := &tally{named: lead.named, votes: map[string]int{}, examples: map[string]schema.TraceID{},
		leads: map[string]*breakerLead{}, callers: map[string]*silentCaller{}}
	w := &tripWalk{lead: lead, usual: map[schema.Signature]bool{}}
	for _, h := range hits {
		if v.total == breakerTraces {
			break
		}
		s.seen[h.id] = true
		var recs []schema.Record
		for r, err := range st.TraceRecords(ctx, h.id, DefaultRecordLimit) {
			if err != nil {
				return trip{err: err}
			}
			recs = append(recs, r)
		}
		ro := Options{MaxSkew: s.opts.MaxSkew, SkewTolerance: s.opts.SkewTolerance, SkipTimeline: true, suspectFrom: h.from, Off: s.opts.Off}
		if h.from != "" && !sameService(h.from, lead.dep) {
			ro.startAt = &hitRef{svc: h.from, at: h.at, body: h.body}
		}
		r := AnalyzeRecords(recs, ro)
		if r.fastOnly || r.Suspect == nil || r.Suspect.Service == "" {
			// No walk: the dependency only failed fast in the trace (its
			// breaker refused there too; such a walk never settles a
			// suspect), or nothing failed that it could start at.
			continue
		}
		w.hit, w.res = h, r
		skip := false
		for _, f := range filters {
			var err error
			if skip, err = f.skip(ctx, st, w); err != nil {
				return trip{err: err}
			}
			if skip {
				break
			}
		}
		if !skip {
			v.add(h, r, lead)
		}
	}
	for _, r := range voteRules() {
		if !s.opts.ruleOff(r.name) {
			r.apply(v)
		}
	}
	return v.trip()
}

// tally is the vote of the tripping traces kept: the suspects in the
// order first named, each one's votes, example trace, own lead and silent
// caller, and every walk. The vote rules set best, the suspect they
// settle on, and by, the rule that set best.
type tally struct {
	named    bool // the breaker named its dependency
	order    []string
	votes    map[string]int
	examples map[string]schema.TraceID
	leads    map[string]*breakerLead
	callers  map[string]*silentCaller
	walks    []walked
	total    int
	best     string
	by       string
}

// add counts the walk r of the tripping trace h.
func (v *tally) add(h traceHit, r *Result, lead *breakerLead) {
	s := r.Suspect.Service
	if k := slices.IndexFunc(v.order, func(o string) bool { return sameService(o, s) }); k >= 0 && v.order[k] != s {
		// One dependency under two names (a breaker's short name and
		// the peer's service name): count it once, by the longer name.
		if len(s) > len(v.order[k]) {
			o := v.order[k]
			v.votes[s], v.examples[s], v.leads[s], v.callers[s] = v.votes[o], v.examples[o], v.leads[o], v.callers[o]
			delete(v.votes, o)
			v.order[k] = s
		} else {
			s = v.order[k]
		}
	}
	if v.votes[s] == 0 {
		v.order = append(v.order, s)
		v.examples[s] = h.id
		v.leads[s] = r.lead
		v.callers[s] = r.caller
	}
	v.votes[s]++
	v.total++
	v.walks = append(v.walks, walked{suspect: s, path: slices.DeleteFunc(r.path, func(p string) bool {
		return sameService(p, lead.dep) || sameService(p, s) || sameService(p, h.from)
	}), blind: namesNoCallee(r.Suspect.Kind) && !isFastFailure(r.Suspect.Kind), by: h.by, kind: r.Suspect.Kind})
}

// trip is what the vote settled.
func (v *tally) trip() trip {
	if v.best == "" {
		return trip{}
	}
	best := v.best
	score := reach(v.walks, best, "")
	return trip{suspect: best, votes: score, via: score - v.votes[best], of: v.total, example: v.examples[best],
		next: v.leads[best], caller: v.callers[best],
		rules: append(v.lookbacks(best), v.by), walks: v.walks}
}

// lookbacks names the lookbacks that found the walks reaching s, in the
// order of breakerRules.
func (v *tally) lookbacks(s string) []string {
	var out []string
	for _, r := range breakerRules() {
		if slices.ContainsFunc(v.walks, func(w walked) bool { return w.by == r.name && w.reaches(s, "") }) {
			out = append(out, r.name)
		}
	}
	return out
}

// walked is where one tripping trace's suspect walk ended, and the
// services it went through on the way from the breaker's dependency;
// blind when it ended on a symptom that names no callee and leaves no
// breaker to follow (a timeout of something); by is the lookback that
// found the trace; kind is the suspect's kind the walk ended in.
type walked struct {
	suspect string
	path    []string
	blind   bool
	by      string
	kind    schema.Kind
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

// reaches reports whether the walk ends at s or goes through it, and goes
// through under ("" any).
func (w *walked) reaches(s, under string) bool {
	in := sameService(w.suspect, s) || slices.ContainsFunc(w.path, func(p string) bool { return sameService(p, s) })
	return in && (under == "" || slices.ContainsFunc(w.path, func(p string) bool { return sameService(p, under) }))
}

// reach counts the walks that end at s or go through it, of those that
// go through under ("" any).
func reach(walks []walked, s, under string) int {
	n := 0
	for i := range walks {
		if walks[i].reaches(s, under) {
			n++
		}
	}
	return n
}
