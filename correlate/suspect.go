package correlate

import (
	"fmt"
	"strings"

	"github.com/faultline/faultline/schema"
)

// findSuspect follows the origin's pointer (see walkStart) to the service
// that most likely caused the failure: while the current error points at a
// callee (through the span tree, an attribute or its text) and that callee
// logged an error that is not incidental, move to that error. It stops at the deepest failing service
// with no failing dependency of its own, at a callee that logged only
// failure signals (the suspect takes the signal's kind: a GC-bound callee
// is resource-gc), or at a silent callee of a timeout, open breaker, full
// bulkhead, exhausted retry or refused connection.
func findSuspect(t *Trace) {
	var why []string
	cur := walkStart(t, &why)
	if cur < 0 {
		return
	}
	visited := make([]bool, len(t.svcs))
	for {
		visited[t.ents[cur].svc] = true
		if t.opts.suspectFrom != "" {
			t.res.path = append(t.res.path, t.svcs[t.ents[cur].svc].name)
		}
		s, next := suspectStep(t, cur, &why)
		if s != nil {
			answeredWhy(t, s.Service, &why)
			s.Reason = strings.Join(why, "; ")
			t.res.Suspect = s
			return
		}
		if visited[t.ents[next].svc] {
			s := ownSuspect(t, cur, &why)
			s.Reason = strings.Join(why, "; ")
			t.res.Suspect = s
			return
		}
		cur = next
	}
}

// walkStart picks the failure the suspect walk starts at: the origin,
// unless it is incidental; the first failure signal when the trace has no
// error; the first telling failure of Options.suspectFrom when set. -1
// when there is nothing to start from.
func walkStart(t *Trace, why *[]string) int32 {
	cur := t.origin
	if cur < 0 {
		// No error, but failure signals (a caller retrying 429s, a callee
		// pausing for GC) still point at what is failing.
		if cur = firstSignal(t); cur >= 0 {
			*why = append(*why, fmt.Sprintf("no error; %s signalled %s first",
				t.svcs[t.ents[cur].svc].name, t.ents[cur].class))
		}
	} else if incidental(t, cur) {
		// An error inside a request that still succeeded (a metrics flush
		// failing, a handled cache miss), or one nothing else in the trace
		// failed because of, is not what failed the trace.
		cur = firstNot(t, cur, incidental)
		if incidental(t, cur) {
			// Every error was handled (the request succeeded in the end, by
			// a retry): the first one of a kind that propagates tells most.
			cur = firstNot(t, cur, func(t *Trace, i int32) bool {
				return isWeak(t.ents[i].class) || !telling(t, i) && contained(t, i)
			})
		}
		if contained(t, cur) {
			// Else the first error whose own request failed (a message
			// its consumer could not process).
			cur = firstNot(t, cur, contained)
		}
	}
	if w := namedByRuleWhy(t, cur); w != "" {
		*why = append(*why, w)
	}
	if cur >= 0 && t.ents[cur].failure == failError {
		cur = laterCause(t, cur)
	}
	if t.opts.suspectFrom != "" {
		if e := hitEntry(t, t.opts.startAt); e >= 0 && telling(t, e) {
			return laterCause(t, e)
		}
		e := firstCause(t, t.opts.suspectFrom)
		if e < 0 || !telling(t, e) && !namedFast(t, e) {
			t.res.fastOnly = true
			return -1
		}
		cur = laterCause(t, e)
	}
	return cur
}

// suspectStep looks at one error: it either settles the suspect or returns
// the callee's first error to continue with.
func suspectStep(t *Trace, cur int32, why *[]string) (*Suspect, int32) {
	e := &t.ents[cur]
	name := t.svcs[e.svc].name
	tgt, via := pointer(t, cur)
	if tgt == "" || tgt == name {
		if isFastFailure(e.class) && name != "" {
			// A breaker that names no dependency: what the service failed
			// on before its breaker opened is in earlier traces.
			key := breakerKey(t.rec(cur).Body)
			if f := e.fail; key == "" && f >= 0 && t.fails[f].toldBy > 0 {
				key = breakerKey(t.rec(t.fails[f].toldBy - 1).Body) // the refusal it was told by
			}
			t.res.lead = &breakerLead{dep: name, at: t.eventAt(cur), key: key}
		}
		if e.class.PointsElsewhere() {
			if s := signalSuspect(t, cur, why); s != nil {
				return s, -1
			}
		}
		if e.class == schema.KindTransient && e.failure == failError {
			if i := failedCallElsewhere(t, cur); i >= 0 {
				o := t.ents[i].svc
				tgt, _ := pointer(t, i)
				*why = append(*why, fmt.Sprintf("%s (%s) names no callee; %s failed on its call to %s: %s",
					name, e.class, t.svcs[o].name, tgt, oneLine(messageOf(t.rec(i)), 120)))
				return nil, i
			}
		}
		return ownSuspect(t, cur, why), -1
	}
	if h, _ := t.hint(cur); e.class.Vague() && h == "" && !t.opts.ruleOff(ruleCallBelow) {
		if j := failedCallBelow(t, cur, tgt); j >= 0 {
			// A bare status its request answered with, because a call it
			// made failed in a way that says more: walk from that call.
			*why = append(*why, fmt.Sprintf("%s answered %s because its call to %s failed (%s): %s%s",
				name, e.class, tgt, t.ents[j].class, oneLine(messageOf(t.rec(j)), 120), ruleTag(ruleCallBelow)))
			return suspectStep(t, j, why)
		}
	}
	ti := t.findService(tgt)
	var dep, how string
	if ti < 0 || calleeError(t, ti) < 0 {
		dep, how = waitedOn(t, cur, tgt)
	}
	switch {
	case e.class == schema.KindRateLimit && ti >= 0 && !throttledToo(t, ti):
		// A 429 is the callee's own decision to refuse: its other errors
		// are not why it did, unless it was itself throttled further down.
		*why = append(*why, fmt.Sprintf("%s (%s) points at %s (%s), which throttles its callers",
			name, e.class, tgt, via))
		return &Suspect{Service: tgt, Kind: e.class}, -1
	case ti >= 0 && calleeError(t, ti) >= 0:
		*why = append(*why, fmt.Sprintf("%s (%s) points at %s (%s), which logged an error",
			name, e.class, tgt, via))
		return nil, calleeError(t, ti)
	case dep != "":
		// The callee answered late because it was itself waiting.
		*why = append(*why, fmt.Sprintf("%s (%s) points at %s (%s), which logged no error; %s",
			name, e.class, tgt, via, how))
		if di := t.findService(dep); di >= 0 && calleeError(t, di) >= 0 {
			return nil, calleeError(t, di)
		}
		return &Suspect{Service: dep, Kind: e.class}, -1
	case ti >= 0 && t.svcs[ti].firstSignal >= 0 && signalPoints(t, t.svcs[ti].firstSignal):
		// The callee only warned, and its warning is itself a symptom (its
		// own breaker open, its own calls timing out or failing): follow it.
		sig := t.svcs[ti].firstSignal
		*why = append(*why, fmt.Sprintf("%s (%s) points at %s (%s), which logged no error but %s signals",
			name, e.class, tgt, via, t.ents[sig].class))
		return nil, sig
	case ti >= 0 && t.svcs[ti].firstSignal >= 0:
		sig := t.svcs[ti].firstSignal
		*why = append(*why, fmt.Sprintf("%s (%s) points at %s (%s), which logged no error but %s signals: %s",
			name, e.class, tgt, via, t.ents[sig].class, oneLine(messageOf(t.rec(sig)), 120)))
		return &Suspect{Service: tgt, Kind: t.ents[sig].class}, -1
	case unknownAtSilent(t, cur, tgt, via, ti):
		*why = append(*why, fmt.Sprintf("%s (%s) points at %s (%s), which %s%s",
			name, e.class, tgt, via, silence(ti), ruleTag(ruleSilentCalleeUnknown)))
		t.res.caller = &silentCaller{svc: name, at: t.eventAt(cur)}
		return &Suspect{Service: tgt, Kind: e.class}, -1
	case e.class.PointsElsewhere() || e.class == schema.KindTransient || e.class == schema.KindRateLimit:
		// A 429 names the service that throttles: the callee.
		*why = append(*why, fmt.Sprintf("%s (%s) points at %s (%s), which %s",
			name, e.class, tgt, via, silence(ti)))
		if isFastFailure(e.class) {
			t.res.lead = &breakerLead{dep: tgt, at: t.eventAt(cur), named: true, by: name}
			if key := answeredKey(t.rec(cur).Body, tgt); key != "" {
				// The callee answered with its own breaker's refusal, kept
				// for a key: what tripped it is the key's failed work
				// (breaker_lookback_key), not the callee's own failures.
				t.res.lead.named, t.res.lead.key = false, key
			}
		}
		if ti < 0 {
			t.res.caller = &silentCaller{svc: name, at: t.eventAt(cur)}
		}
		return &Suspect{Service: tgt, Kind: e.class}, -1
	}
	return ownSuspect(t, cur, why), -1
}

// throttledToo reports whether service svc itself failed or signalled
// with a 429 of its own callee in the trace.
func throttledToo(t *Trace, svc int32) bool {
	for i := range t.ents {
		if e := &t.ents[i]; e.svc == svc && e.class == schema.KindRateLimit {
			return true
		}
	}
	return false
}

func silence(ti int32) string {
	if ti < 0 {
		return "left no records in this trace"
	}
	return "logged no error"
}

// ownSuspect settles on the service of the current error itself.
func ownSuspect(t *Trace, cur int32, why *[]string) *Suspect {
	e := &t.ents[cur]
	name := t.svcs[e.svc].name
	*why = append(*why, fmt.Sprintf("%s failed on its own (%s) with no failing dependency: %s",
		ShownService(name), e.class, oneLine(messageOf(t.rec(cur)), 120)))
	if e.fail >= 0 && t.fails[e.fail].toldBy > 0 {
		s := t.fails[e.fail].toldBy - 1
		*why = append(*why, fmt.Sprintf("its kind is that of its line just before: %s [%s]",
			oneLine(messageOf(t.rec(s)), 120), ruleVagueSignal))
	}
	if e.fail >= 0 && t.fails[e.fail].calleeStatus > 0 {
		*why = append(*why, fmt.Sprintf("its kind is that of the %d its callee answered, not of its own 5xx [%s]",
			t.fails[e.fail].calleeStatus, ruleCalleeStatus))
	}
	if e.failure == failError {
		t.res.ownSig, t.res.ownAt, t.res.ownRec = t.signature(cur), t.eventAt(cur), t.ents[cur].rec
	}
	return &Suspect{Service: name, Kind: e.class}
}

// signalSuspect is the fallback for a symptom that names no callee: another
// service that signalled trouble of its own (a GC pause, pool waits) before
// it. A signal about a call (a retry, a fallback, a breaker changing state)
// is about that service's dependency, not about itself.
func signalSuspect(t *Trace, cur int32, why *[]string) *Suspect {
	own := t.ents[cur].svc
	at := t.eventAt(cur)
	for _, i := range t.order {
		e := &t.ents[i]
		if t.at(i).After(at) {
			break
		}
		if e.failure == failSignal && e.svc != own && ownTrouble(e.class) && !callerOf(t, i, cur) && !complainsAbout(t, i, own) {
			name := t.svcs[own].name
			other := t.svcs[e.svc].name
			*why = append(*why, fmt.Sprintf("%s (%s) names no callee; %s signalled %s before it: %s",
				name, t.ents[cur].class, other, e.class, oneLine(messageOf(t.rec(i)), 120)))
			return &Suspect{Service: other, Kind: e.class}
		}
	}
	return nil
}

// ownTrouble reports whether a signal of kind k is about its service's own
// state (memory, pools, slowness) rather than about a call it made.
func ownTrouble(k schema.Kind) bool {
	return !k.PointsElsewhere() && !k.Vague() && k != schema.KindRateLimit
}

// failedCallElsewhere is the fallback for a bare 5xx that names no
// callee: the first error of another service, not one of its callers nor
// complaining about it, that failed on a call to a third service (a
// timeout, a refusal, an open breaker). A bare 503 says some dependency
// was unavailable; a trace without spans does not say which, and clock
// skew between hosts may log it before its cause. -1 when there is none.
func failedCallElsewhere(t *Trace, cur int32) int32 {
	own := t.ents[cur].svc
	for _, i := range t.events {
		o := &t.ents[i]
		if o.svc == own || t.svcs[o.svc].name == "" || isWeak(o.class) || o.class.Vague() ||
			callerOf(t, i, cur) || complainsAbout(t, i, own) {
			continue
		}
		if tgt, _ := pointer(t, i); tgt != "" && tgt != t.svcs[o.svc].name {
			return i
		}
	}
	return -1
}

// complainsAbout reports whether signal i points at service svc: a caller
// retrying or timing out on svc says svc is in trouble, not itself, even
// where no span tree shows that it is a caller.
func complainsAbout(t *Trace, i, svc int32) bool {
	tgt, _ := pointer(t, i)
	return tgt != "" && tgt == t.svcs[svc].name
}

// firstCause is the first telling error of service name (not a fast
// failure, not a bare status), else its first telling failure signal (a
// retry of a timed-out call), else its first error; -1 when it has none.
// When the service failed fast (its breaker open) before its first
// telling error and that error is of a kind that does not propagate (an
// audit call rejected, a validation), the fast failure is returned: the
// trace shows nothing of why the breaker opened.
func firstCause(t *Trace, name string) int32 {
	s := t.findService(name)
	if s < 0 {
		return -1
	}
	fast := int32(-1)
	for _, i := range t.events {
		if t.ents[i].svc != s {
			continue
		}
		if isFastFailure(t.ents[i].class) {
			if fast < 0 {
				fast = i
			}
			continue
		}
		if telling(t, i) {
			if fast >= 0 && isWeak(t.ents[i].class) {
				return fast // failing fast already; the rest is noise
			}
			return i
		}
	}
	if fast >= 0 && namedFast(t, fast) {
		// Its own breaker on a dependency it names refused (breaker_chained):
		// that dependency's failures tripped it, not a call it retried.
		return fast
	}
	for _, i := range t.order {
		if e := &t.ents[i]; e.svc == s && e.failure == failSignal && telling(t, i) {
			return i
		}
	}
	return t.svcs[s].firstError
}

// namedFast reports whether entry e is a fast failure (an open breaker)
// that names a dependency other than its own service: a breaker chained
// behind another (see ruleBreakerChained).
func namedFast(t *Trace, e int32) bool {
	if t.opts.ruleOff(ruleBreakerChained) || !isFastFailure(t.ents[e].class) {
		return false
	}
	tgt, _ := t.hint(e)
	return tgt != "" && tgt != t.svcs[t.ents[e].svc].name && !isLoopback(tgt)
}

// telling reports whether a failure says why its service failed: not a
// fast failure, not a bare status ("503", an access-log line) that names
// no callee, and not a call to a local agent (metrics, logs). An error
// handled by a fallback is telling: it is what trips a breaker.
func telling(t *Trace, i int32) bool {
	if tgt, _ := t.hint(i); isLoopback(tgt) || mentionsLoopback(messageOf(t.rec(i))) {
		return false
	}
	switch t.ents[i].class {
	case schema.KindCircuitOpen, schema.KindBulkheadFull:
		return false
	case schema.KindUnknown, schema.KindTransient:
		tgt, _ := pointer(t, i)
		return tgt != "" && tgt != t.svcs[t.ents[i].svc].name
	}
	return true
}

// callerOf reports whether entry i is of a service that called, directly
// or not, the span of entry cur: a caller's signal (its retries of the
// failing call) is an echo of cur's failure, not its cause.
func callerOf(t *Trace, i, cur int32) bool {
	n, svc := t.ents[cur].node, t.ents[i].svc
	if n < 0 || svc == t.ents[cur].svc {
		return false
	}
	for p := t.nodes[n].parent; p >= 0; p = t.nodes[p].parent {
		if t.nodes[p].svc == svc {
			return true
		}
	}
	return false
}

// firstSignal is the first failure signal in causal order of a service
// with a name; -1 when there is none.
func firstSignal(t *Trace) int32 {
	for _, i := range t.order {
		if e := &t.ents[i]; e.failure == failSignal && t.svcs[e.svc].name != "" {
			return i
		}
	}
	return -1
}

// contained reports whether an error happened inside a request its
// service still answered successfully: the span where the service took
// the request has neither an error status nor a failing HTTP status. A
// failed call to a loopback address (a local metrics or log agent) counts
// as contained too.
func contained(t *Trace, e int32) bool {
	if tgt, _ := t.hint(e); isLoopback(tgt) || mentionsLoopback(messageOf(t.rec(e))) {
		return true // a local agent (metrics, logs) the request did not need
	}
	n := t.ents[e].node
	if n < 0 {
		return false
	}
	lr := localRoot(t, n)
	if t.nodes[lr].ent < 0 {
		return false
	}
	r := t.rec(t.nodes[lr].ent)
	if r.Type != schema.TypeSpan || r.IsError() {
		return false
	}
	return httpStatus(r) < 400
}

func isLoopback(h string) bool {
	return h == "localhost" || strings.HasPrefix(h, "127.") && isIPv4(h) || h == "::1"
}

func mentionsLoopback(s string) bool {
	return strings.Contains(s, " 127.0.0.1:") || strings.Contains(s, "//localhost:") ||
		strings.Contains(s, " localhost:")
}

// incidental reports whether an error is contained, or is an error that
// does not propagate by its kind (unknown, deterministic, auth, not
// found) which no failure of another service points at and whose
// caller's span around the call did not fail, or which its service logs
// as often as in the hour before (Options.usual).
func incidental(t *Trace, e int32) bool {
	if contained(t, e) {
		return true
	}
	if len(t.opts.usual) > 0 && t.opts.isUsual(t.signature(e)) {
		return true // noise the service always makes (see skipUsual)
	}
	if !isWeak(t.ents[e].class) {
		return false
	}
	own := t.ents[e].svc
	name := t.svcs[own].name
	if n := t.ents[e].node; n >= 0 {
		// The caller's span around the call: failed, it failed with it.
		p := t.nodes[n].parent
		for p >= 0 && t.nodes[p].svc == own {
			p = t.nodes[p].parent
		}
		if p >= 0 && t.nodes[p].failed {
			return false
		}
	}
	for _, i := range t.events {
		if t.ents[i].svc == own {
			continue
		}
		if tgt, _ := pointer(t, i); tgt == name {
			return false
		}
	}
	return true
}

// isWeak reports whether a failure kind does not propagate by itself to
// callers: a bug or a rejected input is as likely handled as fatal.
func isWeak(k schema.Kind) bool {
	switch k {
	case schema.KindUnknown, schema.KindDeterministic, schema.KindAuth, schema.KindNotFound:
		return true
	}
	return false
}

// signalPoints reports whether a failure signal is a symptom of another
// failure: of a kind that points elsewhere, or naming a callee of its own.
func signalPoints(t *Trace, sig int32) bool {
	if t.ents[sig].class.PointsElsewhere() {
		return true
	}
	tgt, _ := pointer(t, sig)
	return tgt != "" && tgt != t.svcs[t.ents[sig].svc].name
}

// calleeError is the first error of service svc that is not incidental
// (see incidental); -1 when the service logged no error, or only
// incidental ones: an error inside a request the service still answered
// tells nothing of why its caller failed, its signals may.
func calleeError(t *Trace, svc int32) int32 {
	first := t.svcs[svc].firstError
	if first < 0 || !incidental(t, first) {
		if first >= 0 {
			first = laterCause(t, first)
		}
		return first
	}
	for _, i := range t.events {
		if t.ents[i].svc == svc && !incidental(t, i) {
			return laterCause(t, i)
		}
	}
	return -1
}

// hitEntry finds the entry of the record h refers to; -1 when h is nil or
// the trace does not hold it.
func hitEntry(t *Trace, h *hitRef) int32 {
	if h == nil {
		return -1
	}
	for i := range t.ents {
		if r := t.rec(int32(i)); t.ents[i].fail >= 0 && r.Time.Equal(h.at) && r.Body == h.body && serviceOf(r) == h.svc {
			return int32(i)
		}
	}
	return -1
}

// laterCause is what failed the request of a weak error (see isWeak):
// a later error of the same service in the same span that propagates and
// names a callee ("request to promotion failed: EOF", or an open breaker
// on it, after "audit event rejected"). The error itself when there is
// none.
func laterCause(t *Trace, e int32) int32 {
	n, own := t.ents[e].node, t.ents[e].svc
	if n < 0 || !isWeak(t.ents[e].class) {
		return e
	}
	for _, i := range t.events {
		o := &t.ents[i]
		if i == e || o.node != n || o.svc != own || isWeak(o.class) || !telling(t, i) && !isFastFailure(o.class) ||
			t.eventAt(i).Before(t.eventAt(e)) {
			continue
		}
		if tgt, _ := pointer(t, i); tgt != "" && tgt != t.svcs[own].name {
			return i
		}
	}
	return e
}

// firstNot is the first error event for which skip is false; def when
// there is none.
func firstNot(t *Trace, def int32, skip func(*Trace, int32) bool) int32 {
	for _, i := range t.events {
		if !skip(t, i) {
			return i
		}
	}
	return def
}

// namedByRuleWhy is the reason clause for a walk that starts at a weak
// error (see isWeak) that another service's error names as its callee by
// a per-trace rule (its via ends with the rule's tag: a quote of the
// error, a report of the callee's answer); "" otherwise. Without that
// rule the error would have been passed over as incidental.
func namedByRuleWhy(t *Trace, e int32) string {
	if e < 0 || !isWeak(t.ents[e].class) {
		return ""
	}
	name := t.svcs[t.ents[e].svc].name
	for _, i := range t.events {
		if tgt, via := t.hint(i); tgt == name && strings.HasSuffix(via, "]") && t.ents[i].svc != t.ents[e].svc {
			return fmt.Sprintf("%s's error names %s (%s)", t.svcs[t.ents[i].svc].name, name, via)
		}
	}
	return ""
}
