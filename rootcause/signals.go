package rootcause

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/faultline/faultline/schema"
)

// inputs is everything the scorers read.
type inputs struct {
	win, base *period
	traces    *traceVotes
	q         Query
	off       map[string]bool // rules switched off (tests)
}

// scored is one service being scored: its signals and what names it.
type scored struct {
	service   string
	signals   []Signal
	evidence  []string
	kind      schema.Kind
	onset     time.Time
	anomalous bool
	// timingKind is the kind call_timing found; ownExamples are traces
	// that show the service's own evidence (its slowest calls, the calls
	// its new version broke), for a candidate without failing traces.
	timingKind  schema.Kind
	timed       bool    // call_timing found its own shift
	outside     bool    // latency timed it by its callers' spans, waits included
	wire        float64 // how surely call_timing found its network slow (network-delay), 0..1
	ownExamples []schema.TraceID
	// deployedAt is when its new version was first seen (deploy).
	deployedAt time.Time
	// explains is, per explaining rule, how many of the window's anomalous
	// requests the service explains, weighed by how surely (see doc.go,
	// "Ranking").
	explains map[string]float64
	// loggedSlow are the requests logged_timing found slower, with how
	// much (warned_wait reads them).
	loggedSlow map[schema.TraceID]float64
	// followed is set when behaviour already found the change to follow
	// from a callee's trouble (and discounted it).
	followed bool
}

// explain notes that rule name explains n of the window's anomalous
// requests by this service.
func (s *scored) explain(name string, n float64) {
	if n <= 0 {
		return
	}
	if s.explains == nil {
		s.explains = map[string]float64{}
	}
	s.explains[name] += n
}

// explained is the requests the service explains, all rules together.
func (s *scored) explained() float64 {
	t := 0.0
	for _, n := range s.explains {
		t += n
	}
	return t
}

func (s *scored) add(name string, v float64, reason string) {
	if v == 0 {
		return
	}
	s.signals = append(s.signals, Signal{Name: name, Value: round3(v), Reason: reason})
	if reason != "" {
		// The rule's name ends its evidence line: which rule said what.
		s.evidence = append(s.evidence, reason+" ["+name+"]")
	}
}

func (s *scored) score() float64 {
	var t float64
	for _, g := range s.signals {
		t += g.Value
	}
	return round3(t)
}

// Weights of the named signals: the most a signal can add.
const (
	wTraceOrigin = 4.0
	wNewErrors   = 1.5
	wLatency     = 1.5
	wDeploy      = 1.0
	wDownstream  = -1.0
	wBehaviour   = 2.0
)

// scorer is one named signal.
type scorer struct {
	name string
	fn   func(in *inputs, s *scored)
}

// scorers run in this order; each adds at most one signal.
func scorers() []scorer {
	return []scorer{
		{"trace_origin", scoreTraceOrigin},
		{"new_errors", scoreNewErrors},
		{"latency", scoreLatency},
		{"call_timing", scoreCallTiming},
		{"logged_timing", scoreLoggedTiming},
		{"behaviour", scoreBehaviour},
		{"deploy", scoreDeploy},
	}
}

func scoreTraceOrigin(in *inputs, s *scored) {
	sv := in.traces.services[s.service]
	if sv == nil || in.traces.failed == 0 || sv.suspectRaw == 0 {
		return
	}
	share := sv.suspect / float64(in.traces.failed)
	if sv.suspect == 0 {
		share = float64(sv.suspectRaw) / float64(in.traces.failed)
	}
	reason := fmt.Sprintf("first error in %d of %d failing traces", sv.suspectRaw, in.traces.failed)
	if sv.suspect < float64(sv.suspectRaw)*0.75 {
		reason += " (discounted: the same errors occur in the baseline, or it is too short to tell)"
	}
	if len(sv.discredited) > 0 {
		reason += fmt.Sprintf("; its refused connections name %s, which kept serving as usual",
			joinCut(sortedKeys(sv.discredited), 3))
	}
	if len(sv.paused) > 0 {
		reason += fmt.Sprintf("; its failed calls to %s came while it was itself short of memory or pausing for GC",
			joinCut(sortedKeys(sv.paused), 3))
	}
	if len(sv.hosts) > 0 {
		reason += fmt.Sprintf("; its callers' errors name it by its host, %s, which their failed calls' spans give for %s (%s)",
			joinCut(sortedKeys(sv.hosts), 3), s.service, ruleHostPeer)
	}
	reason += sv.tripReason()
	s.explain("trace_origin", sv.suspect)
	s.add("trace_origin", wTraceOrigin*share, reason)
}

func scoreLatency(in *inputs, s *scored) {
	w, b := in.win.services[s.service], in.base.services[s.service]
	if w == nil || b == nil {
		return
	}
	what, ws, bs := "p95 span self time", &w.selfNs, &b.selfNs
	if ws.count() < 5 || bs.count() < 5 {
		// No spans of its own (a third-party API, a database): judge it by
		// its callers' client spans.
		what, ws, bs = "p95 latency seen by its callers", &w.peerNs, &b.peerNs
		if waitsAreCallers(in.win, in.base, s.service) {
			return // its callers wait longer on everything they call
		}
		s.outside = true
	}
	if ws.count() < 5 || bs.count() < 5 {
		return
	}
	pw, pb := ws.quantile(0.95), bs.quantile(0.95)
	ratio := (pw + 1e6) / (pb + 1e6) // 1 ms floor against noise of tiny spans
	if op, r, mw, mb := slowestOperation(w, b); r > ratio {
		// One operation slowed while the rest did not: its median says
		// so where the service's p95 drowns it.
		what, ratio, pw, pb = "median self time of "+quoteCut(op, 60), r, mw, mb
	}
	if ratio < 1.5 {
		return
	}
	v := wLatency * math.Min(1, math.Log2(ratio)/3)
	reason := fmt.Sprintf("its %s went from %s to %s", what, fmtDur(pb), fmtDur(pw))
	if c := blamedCallee(in.win, in.base, s.service); c != "" {
		// Its spans around its calls to c grew by what those calls
		// waited, and span timing puts that wait on c.
		v *= explainedShare
		reason += fmt.Sprintf(", of which its calls to %s waited on %s's side (call_timing)", c, c)
	}
	s.anomalous = true
	s.add("latency", v, reason)
}

func scoreNewErrors(in *inputs, s *scored) {
	if in.base.records == 0 {
		return
	}
	w := in.win.services[s.service]
	if w == nil {
		return
	}
	b := in.base.services[s.service]
	var n, tmpls int
	var weighted float64
	var first time.Time
	for t, ts := range w.templates {
		if ts.errors+ts.warns == 0 || !ts.own() || (b != nil && b.templates[t] != nil) || in.win.aboutOther(s.service, ts) {
			continue
		}
		n += ts.errors + ts.warns
		// A warning (a retry, a fallback taken) is a weaker sign than an error.
		// Absent from the baseline as surely as the baseline was long
		// enough to show it (exposure).
		weighted += (float64(ts.errors) + 0.2*float64(ts.warns)) * exposure(float64(ts.count)/in.win.minutes(), in.base.minutes())
		tmpls++
		if first.IsZero() || ts.first.Before(first) {
			first = ts.first
		}
	}
	if n == 0 {
		return
	}
	s.note(first)
	s.add("new_errors", wNewErrors*math.Min(1, weighted/5),
		fmt.Sprintf("%s of %s of its own, absent in the %s before", plural(n, "error/warning line"), plural(tmpls, "signature"), in.baseLabel()))
}

func scoreDeploy(in *inputs, s *scored) {
	w := in.win.services[s.service]
	if w == nil || len(w.versions) == 0 {
		return
	}
	var b *serviceProfile
	if in.base.records > 0 {
		b = in.base.services[s.service]
	}
	if b == nil {
		return
	}
	vs := sortedKeys(w.versions)
	slices.SortStableFunc(vs, func(x, y string) int { return w.versions[x].first.Compare(w.versions[y].first) })
	for _, v := range vs {
		if nv, ok := b.newVersion(v, w.versions[v]); ok {
			seen := w.versions[v]
			s.kind, s.deployedAt = schema.KindBadDeploy, seen.first
			s.add("deploy", wDeploy, fmt.Sprintf("%s first seen at %s; %s",
				nv, seen.first.UTC().Format(time.TimeOnly), b.ranVersions(seen.pod)))
			return
		}
	}
}

// newVersion reports whether window version v of the service is one the
// baseline did not run, and how to name it. A version number is new when
// the baseline told the service's version and never this one, or, when
// it told none, the window's lines say the service started with it (no
// more than a rollout's few times: restartLoop); a pod template is new
// when the baseline saw the service's pods on other templates.
func (b *serviceProfile) newVersion(v string, seen *versionSeen) (string, bool) {
	if b.versionsHas(v) {
		return "", false
	}
	name := "version " + quoteCut(seen.name, 40)
	if seen.pod {
		return seen.name, b.hasVersions(true)
	}
	if seen.starts > 0 {
		name += " (a startup line)"
	}
	return name, b.hasVersions(false) || seen.starts > 0 && seen.starts < restartLoop
}

// hasVersions reports whether the profile saw any version of the kind.
func (sp *serviceProfile) hasVersions(pod bool) bool {
	for _, vs := range sp.versions {
		if vs.pod == pod {
			return true
		}
	}
	return false
}

// ranVersions says what versions of the kind the baseline ran.
func (sp *serviceProfile) ranVersions(pod bool) string {
	var vs []string
	for _, v := range sortedKeys(sp.versions) {
		if sp.versions[v].pod == pod {
			vs = append(vs, strings.TrimPrefix(sp.versions[v].name, "pod template "))
		}
	}
	if len(vs) == 0 {
		return "the baseline told no version"
	}
	if pod {
		return "the baseline's pods ran template " + joinCut(vs, 3)
	}
	return "the baseline ran " + joinCut(vs, 3)
}

func (sp *serviceProfile) versionsHas(v string) bool { _, ok := sp.versions[v]; return ok }

// note records a time at which the service's anomaly was visible.
func (s *scored) note(t time.Time) {
	if t.IsZero() {
		return
	}
	s.anomalous = true
	if s.onset.IsZero() || t.Before(s.onset) {
		s.onset = t
	}
}

func (in *inputs) baseLabel() string {
	d := in.base.to.Sub(in.base.from).Round(time.Minute)
	var l string
	switch {
	case d <= 0:
		return "baseline"
	case d%time.Hour == 0:
		l = fmt.Sprintf("%dh baseline", int(d.Hours()))
	default:
		l = fmt.Sprintf("%dm baseline", int(d.Minutes()))
	}
	if m := in.base.minutes(); m < 0.9*d.Minutes() {
		// The span names hours; the data in it may be a minute.
		l += fmt.Sprintf(" (%.1f min of data)", m)
	}
	return l
}

func fmtDur(ns float64) string {
	d := time.Duration(ns)
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.1f s", d.Seconds())
	case d >= 10*time.Millisecond:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	default:
		return fmt.Sprintf("%d µs", d.Microseconds())
	}
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// minOpSpans is how many spans an operation needs in each period for its
// median self time to be compared.
const minOpSpans = 8

// slowestOperation finds the operation of a service whose median self time
// rose the most, with the same 1 ms floor as the service's p95.
func slowestOperation(w, b *serviceProfile) (op string, ratio, mw, mb float64) {
	for _, name := range sortedKeys(w.opSelfNs) {
		ws, bs := w.opSelfNs[name], b.opSelfNs[name]
		if ws == nil || bs == nil || ws.count() < minOpSpans || bs.count() < minOpSpans {
			continue
		}
		m1, m0 := ws.quantile(0.5), bs.quantile(0.5)
		if r := (m1 + 1e6) / (m0 + 1e6); r > ratio {
			op, ratio, mw, mb = name, r, m1, m0
		}
	}
	return op, ratio, mw, mb
}

// plural is "1 trace", "2 traces".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Rules are the names of the rules Options.Off can switch off: the
// scorers, the rules weighed over all services, the kind rules and the
// vote adjusters, in the order they apply.
func Rules() []string {
	var out []string
	for _, sc := range scorers() {
		out = append(out, sc.name)
	}
	out = append(out, "deploy_effect", "downstream", "end_state", "crashed", ruleTellingVotes, ruleSlowTransient, ruleBreakerTrips, ruleThrottleStays, ruleDeployStays, ruleRefusedStays, ruleOwnTroubleStays, ruleOwnWaitsStay, ruleAboutOther, ruleCountedOnce, ruleWrappedKnown, ruleSpanlessEntry, ruleWarnedWait, ruleWireCombined, ruleHostPeer)
	for _, r := range kindRules() {
		out = append(out, r.name)
	}
	return out
}
