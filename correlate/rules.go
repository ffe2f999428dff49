package correlate

import (
	"context"
	"slices"
	"strings"

	"github.com/faultline/faultline/schema"
)

// The rules that read the store beyond the trace, in registries: each is a
// small named unit in its own rule_*.go file, with its condition, its
// constants and the test that covers it in its doc comment. A registry
// lists its rules in the order they apply; every reason clause a rule
// writes ends with its name in brackets (see ruleTag), so that a reader,
// or `analyze eval`, sees which rule decided. The table of all of them is
// in doc.go, "Rules".

// storeRule is a rule Analyze applies after the per-trace steps when its
// store reads windows: it reads a.res (and the records of the trace) and
// may change a.res, its suspect and the leads the later rules follow.
type storeRule struct {
	name  string
	apply func(ctx context.Context, st WindowStore, a *storeAnalysis)
}

// storeAnalysis is what the store rules share: the trace's records, the
// options, the result so far, and what the rules already found for other
// traces (StoreRules).
type storeAnalysis struct {
	recs []schema.Record
	opts Options
	res  *Result
	memo *storeMemo
}

// storeRules are the rules of Analyze that consult the store, in order.
func storeRules() []storeRule {
	return []storeRule{
		{ruleUsualNoise, passOverUsualNoise},
		{ruleBreakerFollow, followBreaker},
		{ruleCalleeNamedBefore, nameCalleeBefore},
		{ruleTroubledCaller, blameTroubledCaller},
		{ruleCallerDeploy, blameCallerDeploy},
	}
}

// breakerRule is one step of resolving one open breaker: a lookback that
// gathers into s.hits the failures that may have tripped it, or a rule
// that settles s.trip from them. Each checks its own condition on s; an
// error (reading the store) ends the hop.
type breakerRule struct {
	name  string
	apply func(ctx context.Context, st WindowStore, s *tripSearch) error
}

// breakerRules are the rules of one hop behind an open breaker, in order.
func breakerRules() []breakerRule {
	return []breakerRule{
		{ruleLookbackDependency, lookbackDependency},
		{ruleLookbackKey, lookbackKey},
		{ruleLookbackReported, lookbackReported},
		{ruleLookbackCallers, lookbackCallers},
		{ruleLookbackCalls, lookbackCalls},
		{ruleBreakerWeigh, weighHits},
		{ruleLookbackFar, lookbackFar},
		{ruleBreakerGuard, followGuard},
	}
}

// hitFilter leaves out of a lookback's hits what did not trip a breaker:
// skip a record as it is read (after classification), or drop a hit once
// the scan has read them all (when it needs the whole scan). One of the
// two is set.
type hitFilter struct {
	name string
	skip func(c *hitCandidate, s *causeScan) bool
	drop func(h *traceHit, s *causeScan) bool
}

// hitFilters are the filters of every lookback's records, in order.
func hitFilters() []hitFilter {
	return []hitFilter{
		{name: ruleHitServerSpan, skip: skipServerSpan},
		{name: ruleHitFastFailure, skip: skipFastFailure},
		{name: ruleHitOwnWork, skip: skipOwnWork},
		{name: ruleHitOwnRefusals, drop: dropOwnRefusals},
	}
}

// tripFilter leaves a tripping trace, once analysed, out of the vote: it
// says nothing of what tripped the breaker. An error is a store's.
type tripFilter struct {
	name string
	skip func(ctx context.Context, st WindowStore, w *tripWalk) (bool, error)
}

// tripFilters are the filters of analysed tripping traces, in order; the
// first that skips a trace decides.
func tripFilters() []tripFilter {
	return []tripFilter{
		{ruleTripUnfelt, skipUnfelt},
		{ruleTripUsualSuspect, skipUsualSuspect},
		{ruleTripSilentCall, skipSilentCall},
		{ruleTripBlindDependency, skipBlindDependency},
		{ruleTripRefusalEcho, skipRefusalEcho},
	}
}

// voteRule settles or moves v.best from the walks of the tripping traces.
type voteRule struct {
	name  string
	apply func(v *tally)
}

// voteRules weigh the walks of the tripping traces, in order.
func voteRules() []voteRule {
	return []voteRule{
		{ruleVoteMost, voteMost},
		{ruleVoteDescend, voteDescend},
	}
}

// hopRule adjusts the suspect after one hop behind a breaker has been
// resolved (h.tr) and adopted.
type hopRule struct {
	name  string
	apply func(res *Result, h *hop)
}

// hopRules apply after each hop, in order.
func hopRules() []hopRule {
	return []hopRule{
		{ruleBreakerKind, kindOfTrips},
	}
}

// traceRule is a rule of the per-trace steps, which read no store: it
// runs at the end of the step its registry belongs to and may change what
// that step left on t. Its name ends the warning or the reason clause it
// writes; a scenario under testdata/ with a "rule" file shows it decides
// (TestScenarios).
type traceRule struct {
	name  string
	apply func(t *Trace)
}

// classifyRules run after every record is classified and its callee named,
// in order.
func classifyRules() []traceRule {
	return []traceRule{
		{ruleCalleeStatus, classifyByCalleeStatus},
		{ruleCalleeAnswered, nameAnsweredCallee},
		{ruleQuotedError, nameQuotedCallee},
		{ruleVagueSignal, classifyVagueBySignal},
	}
}

// applyTraceRules runs the rules not left out by the options.
func applyTraceRules(t *Trace, rules []traceRule) {
	for _, r := range rules {
		if !t.opts.ruleOff(r.name) {
			r.apply(t)
		}
	}
}

// traceRuleNames lists the per-trace rules of every registry, and
// callee_named, timeout_wait, call_below and callee_succeeded, which are
// not applied after a step but read where a record's callee is named
// (Options.naming), where the suspect walk meets a timeout (waitedOn) or a
// bare status (failedCallBelow), and where the span tree names a failure's
// callee (calleeNode).
func traceRuleNames() []string {
	return slices.Concat([]string{ruleCalleeNamed, ruleTimeoutWait, ruleCallBelow, ruleSilentCalleeUnknown, ruleCalleeSucceeded, ruleSpanlessParent},
		namesOf(classifyRules(), func(r traceRule) string { return r.name }))
}

// ruleTag is the suffix of a reason clause written by the named rules:
// " [name]", or " [a b]" for several.
func ruleTag(names ...string) string {
	return " [" + strings.Join(names, " ") + "]"
}

// ruleOff reports whether the rule name is left out of the analysis.
func (o Options) ruleOff(name string) bool { return o.Off[name] }

// Rules are the names of the rules Options.Off can leave out: those of the
// per-trace steps, then those that read the store, in the order they
// apply.
func Rules() []string { return slices.Concat(traceRuleNames(), storeRuleNames()) }

// storeRuleNames lists the rules of the registries that read the store,
// registry by registry.
func storeRuleNames() []string {
	return slices.Concat(
		namesOf(storeRules(), func(r storeRule) string { return r.name }),
		namesOf(breakerRules(), func(r breakerRule) string { return r.name }),
		namesOf(hitFilters(), func(f hitFilter) string { return f.name }),
		namesOf(tripFilters(), func(f tripFilter) string { return f.name }),
		namesOf(voteRules(), func(r voteRule) string { return r.name }),
		namesOf(hopRules(), func(r hopRule) string { return r.name }),
		[]string{ruleBreakerChained, // read where a tripping trace's walk starts (walkStart)
			ruleCalleeNamedElsewhere}) // applied by callee_named_before
}

// namesOf is the name of each rule of a registry.
func namesOf[R any](rules []R, name func(R) string) []string {
	out := make([]string, len(rules))
	for i, r := range rules {
		out[i] = name(r)
	}
	return out
}
