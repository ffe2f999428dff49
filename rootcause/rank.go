package rootcause

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/faultline/faultline/schema"
)

// rank scores every service seen in the window and returns the candidates,
// best first. Services with no signal at all are left out.
func rank(in *inputs) []Candidate {
	names := map[string]bool{}
	for n := range in.win.services {
		names[n] = true
	}
	for n := range in.traces.services {
		names[n] = true
	}
	delete(names, "") // records whose service nobody could tell
	var all []*scored
	for _, n := range sortedKeys(names) {
		s := &scored{service: n}
		for _, sc := range scorers() {
			if !in.off[sc.name] {
				sc.fn(in, s)
			}
		}
		if sv := in.traces.services[n]; sv != nil && sv.suspectRaw > 0 {
			s.note(sv.firstNew)
		}
		if len(s.signals) > 0 {
			all = append(all, s)
		}
	}
	if !in.off[ruleWarnedWait] {
		warnedWaits(in, all)
	}
	explained := map[string]string{}
	if !in.off["deploy_effect"] {
		explained = scoreDeployEffect(in, all)
	}
	if !in.off["downstream"] {
		scoreDownstream(in, all, explained)
	}
	weigh(in, all)
	if in.q.Service != "" {
		all = scope(in, all)
	}
	slices.SortStableFunc(all, func(a, b *scored) int {
		return cmp.Or(cmp.Compare(b.score(), a.score()), a.onset.Compare(b.onset), cmp.Compare(a.service, b.service))
	})
	out := make([]Candidate, 0, len(all))
	for _, s := range all {
		if s.score() <= 0 {
			continue
		}
		c := candidate(in, s)
		c.Rank = len(out) + 1
		out = append(out, c)
	}
	return out
}

// Weights of the ranking (see doc.go, "Ranking").
// symptomScale is the most the symptom signals add up to on their
// weights; symptomUnit (tuning.go) times it is the most they add to a
// candidate's score (wSymptoms in doc.go).
const symptomScale = wNewErrors + wLatency + wDeploy

// weigh turns the signals into the ranking's terms: an explaining rule's
// signal becomes the share of the window's anomalous requests it explains
// by the service, a symptom's its part of wSymptoms. The anomalous
// requests are the failing traces (weighed by novelty) and the requests
// the explaining rules find slowed or changed, all services together.
func weigh(in *inputs, all []*scored) {
	total := in.traces.news
	for _, s := range all {
		for name, n := range s.explains {
			if name != "trace_origin" && name != "deploy_effect" {
				total += n
			}
		}
	}
	for _, s := range all {
		for i := range s.signals {
			g := &s.signals[i]
			if n := s.explains[g.Name]; n > 0 && total > 0 {
				g.Value = round3(n / total)
			} else {
				g.Value = round3(symptomUnit * g.Value)
			}
		}
		if n := s.explained(); n > 0 && total > 0 {
			line := fmt.Sprintf("explains %.0f%% of the window's anomalous requests, each weighed by how unusual it is (%s) [explained]",
				100*n/total, explainedParts(s.explains, total))
			s.evidence = append([]string{line}, s.evidence...)
		}
	}
}

// explainedParts says what a candidate's explained requests are, each
// part as its share of the window's total: a weighed count is no count of
// traces ("1.0 failing traces").
func explainedParts(ex map[string]float64, total float64) string {
	words := map[string]string{
		"trace_origin":  "failing traces that begin here",
		"deploy_effect": "failing traces its new version called into or served",
		"call_timing":   "requests its timing slowed",
		"logged_timing": "requests its stated durations slowed",
		"behaviour":     "traces whose execution changed",
		ruleWarnedWait:  "requests of a caller that waited on it",
	}
	var parts []string
	for _, name := range sortedKeys(ex) {
		parts = append(parts, words[name]+" "+fmtShare(ex[name]/total))
	}
	return strings.Join(parts, ", ")
}

// fmtShare is a share in whole percent, "<1%" rather than "0%".
func fmtShare(f float64) string {
	if f > 0 && f < 0.005 {
		return "<1%"
	}
	return fmt.Sprintf("%.0f%%", 100*f)
}

// scoreDownstream lowers a service that calls another anomalous service
// whose anomaly began no later: the failure is deeper than it.
func scoreDownstream(in *inputs, all []*scored, explained map[string]string) {
	by := map[string]*scored{}
	// Scores before any penalty: which callee is deeper does not depend on
	// the order services are weighed in.
	pre := map[string]float64{}
	for _, s := range all {
		by[s.service] = s
		pre[s.service] = s.score()
	}
	for _, s := range all {
		var deeper []string
		for _, c := range calledBy(in, s.service) {
			d := by[c]
			if d == nil || !d.anomalous || pre[c] < pre[s.service]*0.25 || explained[c] == s.service {
				continue
			}
			if s.onset.IsZero() || d.onset.IsZero() || !d.onset.After(s.onset.Add(time.Second)) {
				deeper = append(deeper, c)
			}
		}
		if len(deeper) > 0 {
			v := wDownstream * min(1, float64(len(deeper))/2)
			reason := fmt.Sprintf("it calls %s, which failed too and no later: the cause is likely deeper", joinCut(deeper, 3))
			if n := s.explains["behaviour"]; n > 0 && !s.followed && !allKeptServing(in, deeper) {
				// A change in its execution may follow from them as
				// well: it keeps what behaviour keeps of a change that
				// follows from a callee in trouble.
				s.explains["behaviour"] = n * explainedShare
			}
			if t := waitingSignals(s); t > 0 {
				// How slow it looks, to its callers or by its own lines,
				// includes its waits on them: most of it is theirs, and
				// so are most of the requests it slowed.
				v -= (1 - explainedShare) * t
				for name, n := range s.explains {
					if waits(s, name) {
						s.explains[name] = n * explainedShare
					}
				}
				reason += fmt.Sprintf("; its slower calls include its waits on them (%.2f of its timing taken off)", (1-explainedShare)*t)
			}
			// A slow network of its own explains its calls out too (they
			// cross it), as surely as call_timing found it.
			v *= 1 - s.wire
			if net := netTiming(s); net > 0 {
				// Span timing measured it net of its callees (the wait
				// beyond the callee's span, its own work less its
				// children's): what they did does not explain that.
				v = max(v, net-s.score())
			}
			if v < 0 {
				s.add("downstream", v, reason)
			}
		}
	}
}

// waitingSignals sums a service's timing signals that include the time it
// waited on its callees: its latency as its callers see it (not its spans'
// self time), its own lines' durations, and call_timing's view of a
// service without spans.
func waitingSignals(s *scored) float64 {
	t := 0.0
	for _, g := range s.signals {
		if waits(s, g.Name) {
			t += g.Value
		}
	}
	return t
}

// waits reports whether s's signal name is one waitingSignals sums.
func waits(s *scored, name string) bool {
	return name == "logged_timing" || name == "latency" && s.outside || name == "call_timing" && !s.timed
}

// netTiming is a service's call_timing signal when it is timed net of its
// callees, else 0.
func netTiming(s *scored) float64 {
	if !s.timed {
		return 0
	}
	for _, g := range s.signals {
		if g.Name == "call_timing" {
			return g.Value
		}
	}
	return 0
}

// calledBy is what svc calls: its callees in the call graph, and the
// services its own failing traces point at (a service without spans names
// its dependencies only in its errors).
func calledBy(in *inputs, svc string) []string {
	out := in.traces.callees(svc)
	for _, t := range sortedKeys(in.traces.services) {
		if in.traces.services[t].pointedBy[svc] > 0 && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// scope keeps, for an alert on one service, that service and everything
// it reaches: its callees in the call graph, transitively, and the services
// its failing traces point at.
func scope(in *inputs, all []*scored) []*scored {
	reach := map[string]bool{in.q.Service: true}
	queue := []string{in.q.Service}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		next := in.traces.callees(n)
		for t, sv := range in.traces.services {
			if sv.pointedBy[n] > 0 {
				next = append(next, t)
			}
		}
		for _, c := range next {
			if !reach[c] {
				reach[c] = true
				queue = append(queue, c)
			}
		}
	}
	var out []*scored
	for _, s := range all {
		if reach[s.service] {
			out = append(out, s)
		}
	}
	return out
}

// candidate turns a scored service into the report's candidate.
func candidate(in *inputs, s *scored) Candidate {
	sv := in.traces.services[s.service]
	kind, sig, tmpl, why := describe(in, s, sv)
	c := Candidate{
		Service:   s.service,
		Kind:      kind,
		Signature: sig,
		Template:  tmpl,
		Score:     s.score(),
		FirstSeen: s.onset,
		Evidence:  s.evidence,
		Signals:   s.signals,
	}
	if sv != nil {
		c.Traces = sv.suspectRaw
		c.PointedFrom = sortedKeys(sv.pointedBy)
		c.EntryPoints = topKeys(sv.entries, 5)
		c.ExampleTraces = examples(sv.examples, 3)
		if c.FirstSeen.IsZero() {
			c.FirstSeen = sv.first
		}
	}
	if len(s.ownExamples) > 0 && (len(c.ExampleTraces) == 0 || c.Kind == s.timingKind) {
		// The traces that show its own evidence: its slowest calls, the
		// calls its new version broke.
		c.ExampleTraces = mergeExamples(s.ownExamples, c.ExampleTraces, 3)
	}
	if why != "" {
		c.Evidence = append(slices.Clip(c.Evidence), why)
	}
	c.ID = CandidateID(c.Service, c.Kind, c.Signature)
	return c
}

// describe picks the candidate's kind and error signature: what its
// failing traces say, else its newest error template, else what the
// signals say (latency, log anomaly).
//
// Two named kind rules write why, when they decide: end_state (the latest
// mechanism its own new errors tell of) and crashed (its own new error
// says its process exits).
func describe(in *inputs, s *scored, sv *serviceVotes) (kind schema.Kind, sig schema.Signature, tmpl string, why string) {
	var best *templateStat
	if w := in.win.services[s.service]; w != nil {
		if best = bestTemplate(w, in.base.services[s.service]); best != nil {
			sig, tmpl = best.signature, best.template
		}
	}
	kind = s.kind // a signal that names the kind (deploy) wins
	if kind == "" && best != nil && best.own() && telling(best.kind) {
		kind = best.kind // what the service says of its own failure
		if w := in.win.services[s.service]; w != nil && !in.off["end_state"] {
			if end := endState(kind, w, in.base.services[s.service]); end != kind {
				why = fmt.Sprintf("its own new errors end in %s after %s [end_state]", end, kind)
				kind = end
			}
		}
	} else if w := in.win.services[s.service]; kind == "" && best != nil && best.own() && w != nil && !in.off["end_state"] {
		// Its most telling line names no kind ("Failed to process
		// message 123 (attempt 4): SyntaxError"); a new one of its own
		// may say where that ends (the message sent to a dead letter
		// queue).
		if end := endState("", w, in.base.services[s.service]); end != "" {
			why = fmt.Sprintf("its own new errors end in %s [end_state]", end)
			kind = end
		}
	}
	if w := in.win.services[s.service]; s.kind == "" && w != nil {
		// The kind rules of kind_*.go, each of which writes why it decides.
		for _, r := range kindRules() {
			if k, because := r.apply(kind, w, in.base.services[s.service]); !in.off[r.name] && k != kind {
				kind, why = k, because
			}
		}
	}
	if (kind == "" || kind == schema.KindLatency) && s.timingKind != "" && s.timingKind != schema.KindLatency {
		// The mechanism span timing shows; a line saying it is slow
		// names none.
		kind = s.timingKind
	}
	if w := in.win.services[s.service]; s.kind == "" && endStates[kind] == 0 && kind != schema.KindConnectionRefused &&
		w != nil && !in.off["crashed"] {
		if t := crashLine(w, in.base.services[s.service]); t != "" {
			// A process that exits (at start, or on an error it cannot
			// handle) is down until it is restarted: its callers' calls
			// are refused or time out, and they say less than its line.
			why = fmt.Sprintf("its own new error says the process exits (%s): it was down [crashed]", quoteCut(t, 80))
			kind = schema.KindConnectionRefused
		}
	}
	if kind == "" && sv != nil && len(sv.kinds) > 0 {
		kinds := sv.kinds
		if !in.off[ruleTellingVotes] {
			kinds = tellingVotes(kinds)
		}
		kind = topKeys(tripKinds(kinds), 1)[0]
		if kind.PointsElsewhere() && len(sv.pointedBy) > 0 {
			kind = pointedKind(kind)
		}
		if k, because := slowTransient(kind, s); k != kind && !in.off[ruleSlowTransient] {
			kind, why = k, because
		}
	}
	if kind == "" && s.timingKind != "" {
		kind = s.timingKind
	}
	if kind == "" {
		kind = schema.KindUnknown
		for _, g := range s.signals {
			switch g.Name {
			case "latency":
				kind = schema.KindLatency
			case "behaviour":
				if kind == schema.KindUnknown {
					kind = schema.KindLogAnomaly
				}
			}
		}
	}
	return kind, sig, tmpl, why
}

// endStates rank the kinds that are where another ends: memory pressure
// ends in an OOM kill, a message that fails the same way every time it is
// delivered is a poison message, waits for a connection end in an
// exhausted pool. A service whose own new errors tell of both says the
// later one; its most frequent lines are often the earlier.
var endStates = map[schema.Kind]int{
	schema.KindOOM:              2,
	schema.KindPoisonMessage:    2,
	schema.KindDBPoolExhaustion: 1,
	schema.KindResourceGC:       1,
}

// endState is the kind of the service's own new error templates that
// ranks highest in endStates, if it ranks above k.
func endState(k schema.Kind, w, b *serviceProfile) schema.Kind {
	for _, t := range sortedKeys(w.templates) {
		ts := w.templates[t]
		if ts.errors+ts.warns == 0 || !ts.own() || (b != nil && b.templates[t] != nil) {
			continue
		}
		if endStates[ts.kind] > endStates[k] {
			k = ts.kind
		}
	}
	return k
}

// exitWords are what a process writes as it exits on a failure: at start
// ("Worker failed to boot. Shutting down", "fatal: failed to load
// config") or on an error it cannot handle ("unrecoverable error,
// exiting", "Uncaught exception in thread "main", shutting down").
var exitWords = []string{"exiting", "shutting down", "failed to boot", "failed to start", "fatal:",
	"startup failed", "application run failed", "crashloopbackoff", "back-off restarting"}

// crashLine is the first of the service's own new error templates (absent
// from the baseline) that says its process exits, "" when none does. Only
// errors count: a graceful shutdown during a rollout is logged below
// ERROR.
func crashLine(w, b *serviceProfile) string {
	for _, t := range sortedKeys(w.templates) {
		ts := w.templates[t]
		if ts.errors == 0 || (b != nil && b.templates[t] != nil) {
			continue
		}
		l := strings.ToLower(t)
		for _, x := range exitWords {
			if strings.Contains(l, x) {
				return ts.template
			}
		}
	}
	return ""
}

// telling reports whether a kind says more than "something failed".
func telling(k schema.Kind) bool {
	return k != "" && k != schema.KindUnknown && k != schema.KindTransient && !k.PointsElsewhere()
}

// tripKinds are the kinds of a service's votes, without its callers' open
// breakers and full bulkheads when those are the most and other symptoms
// of a failing callee (its timeouts, its refused connections) are among
// them: a refusal says only that calls were kept away; what tripped it is
// the mechanism.
func tripKinds(kinds map[schema.Kind]int) map[schema.Kind]int {
	if top := topKeys(kinds, 1)[0]; top != schema.KindCircuitOpen && top != schema.KindBulkheadFull {
		return kinds
	}
	out := map[schema.Kind]int{}
	for k, n := range kinds {
		if k.PointsElsewhere() && k != schema.KindCircuitOpen && k != schema.KindBulkheadFull {
			out[k] = n
		}
	}
	if len(out) == 0 {
		return kinds
	}
	return out
}

// pointedKind is what callers' symptoms say about the service they point
// at: their timeouts, open breakers, full bulkheads and exhausted retries
// all say it is slow or failing (a degraded dependency); refused
// connections say it is down.
func pointedKind(k schema.Kind) schema.Kind {
	if k == schema.KindConnectionRefused {
		return k
	}
	return schema.KindDependencyTimeout
}

// bestTemplate is the service's most telling error template in the window:
// new ones before old ones, then the most frequent.
func bestTemplate(w, b *serviceProfile) *templateStat {
	var best *templateStat
	bestNew := false
	for _, t := range sortedKeys(w.templates) {
		ts := w.templates[t]
		if ts.errors+ts.warns == 0 {
			continue
		}
		isNew := b == nil || b.templates[t] == nil
		if best == nil || (isNew && !bestNew) || (isNew == bestNew && ts.errors+ts.warns > best.errors+best.warns) {
			best, bestNew = ts, isNew
		}
	}
	return best
}

// CandidateID is the stable id of a candidate: the same service, kind and
// signature give the same id in every run.
func CandidateID(service string, kind schema.Kind, sig schema.Signature) string {
	h := sha256.Sum256([]byte(service + "\x00" + string(kind) + "\x00" + string(sig)))
	return "c-" + hex.EncodeToString(h[:6])
}

func examples(ex []example, n int) []schema.TraceID {
	ex = slices.Clone(ex)
	slices.SortFunc(ex, func(a, b example) int { return cmp.Or(a.at.Compare(b.at), cmp.Compare(a.id, b.id)) })
	var out []schema.TraceID
	for _, e := range ex {
		if len(out) == n {
			break
		}
		out = append(out, e.id)
	}
	return out
}

// mergeExamples is first's traces, then rest's, up to n distinct.
func mergeExamples(first, rest []schema.TraceID, n int) []schema.TraceID {
	var out []schema.TraceID
	for _, id := range slices.Concat(first, rest) {
		if len(out) < n && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

func sortedKeys[K cmp.Ordered, V any](m map[K]V) []K {
	return slices.Sorted(maps.Keys(m))
}

// topKeys is the n keys with the largest counts, ties by key.
func topKeys[K cmp.Ordered](m map[K]int, n int) []K {
	ks := sortedKeys(m)
	slices.SortStableFunc(ks, func(a, b K) int { return cmp.Compare(m[b], m[a]) })
	if len(ks) > n {
		ks = ks[:n]
	}
	return ks
}

func joinCut(xs []string, n int) string {
	if len(xs) > n {
		return strings.Join(xs[:n], ", ") + fmt.Sprintf(" and %d more", len(xs)-n)
	}
	return strings.Join(xs, ", ")
}

func quoteCut(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		s = string(r[:n]) + "…"
	}
	return fmt.Sprintf("%q", s)
}

// allKeptServing reports whether every service of svcs, observable in
// both periods, went on serving as usual (keptServing).
func allKeptServing(in *inputs, svcs []string) bool {
	for _, c := range svcs {
		if !keptServing(in.win, in.base, c) {
			return false
		}
	}
	return true
}
