package sim

import (
	"fmt"
	"time"

	"github.com/faultline/faultline/schema"
)

// The faults whose cause logs nothing: what they do while requests run.
// Each hook returns at once, drawing nothing from the seed, unless its
// fault is the one injected, so the other kinds play as before.

// wire is the extra time a request into pod pi of n spends on the network
// on its way in and its answer on its way back (network-delay).
func (s *sim) wire(n *node, pi int, t time.Time) (in, back time.Duration) {
	if !s.delayedPod(n, pi, t) {
		return 0, 0
	}
	leg := time.Duration(float64(s.p.delay) / 2 * s.p.intensity(t))
	return s.r.latency(leg), s.r.latency(leg)
}

// delayedPod reports whether pod pi of n has its network slowed at t.
func (s *sim) delayedPod(n *node, pi int, t time.Time) bool {
	return s.p.kind == schema.KindNetworkDelay && s.p.target == n && (s.p.delayPod < 0 || pi == s.p.delayPod) && s.p.active(t)
}

// cpuFactor is how much slower n does its own work at t (cpu-starvation); 1 normally.
func (s *sim) cpuFactor(n *node, t time.Time) float64 {
	if !s.p.is(schema.KindCPUStarvation, n) || !s.p.active(t) {
		return 1
	}
	return 1 + (s.p.slowdown-1)*s.p.intensity(t)
}

func scaled(d time.Duration, f float64) time.Duration {
	if f == 1 {
		return d
	}
	return time.Duration(float64(d) * f)
}

// overhead is the extra time an outgoing call of sc spends before its
// request leaves and after its answer arrives: the slowed network of a
// delayed pod, the client's own work in a CPU-starved service. It stays
// within a third of the call's timeout, so the faulty service never times
// out on its own calls and logs nothing.
func (s *sim) overhead(sc scope, e *edge, t time.Time) (pre, post time.Duration) {
	switch {
	case s.p.kind == schema.KindNetworkDelay && s.p.target == sc.n:
		if !s.delayedPod(sc.n, podIndex(sc.n, sc.p), t) {
			return 0, 0
		}
		leg := time.Duration(float64(s.p.delay) / 2 * s.p.intensity(t))
		pre, post = s.r.latency(leg), s.r.latency(leg)
	case s.p.kind == schema.KindCPUStarvation && s.p.target == sc.n:
		f := s.cpuFactor(sc.n, t)
		if f == 1 {
			return 0, 0
		}
		pre, post = scaled(s.r.latency(300*time.Microsecond), f), scaled(s.r.latency(500*time.Microsecond), f)
	default:
		return 0, 0
	}
	if limit := e.timeout / 3; pre+post > limit {
		k := float64(limit) / float64(pre+post)
		pre, post = scaled(pre, k), scaled(post, k)
	}
	return pre, post
}

func podIndex(n *node, p *pod) int {
	for i, q := range n.pods {
		if q == p {
			return i
		}
	}
	return -1
}

// slowQuery is a call to the degrading silent database: very slow for the
// affected share, slower for the rest.
func (s *sim) slowQuery(t time.Time) outcome {
	if s.r.chance(s.p.intensity(t)) {
		return outcome{end: t.Add(s.r.dur(1500*time.Millisecond, 9*time.Second)), fault: true}
	}
	return outcome{end: t.Add(s.r.latency(4*time.Millisecond) * time.Duration(s.r.between(5, 60))), fault: true}
}

// rejects reports whether the call along e is one the silent bad deploy's
// new version gets wrong: from a pod on the new version, along the edge
// the regression changed, for the share of requests it affects.
func (s *sim) rejects(sc scope, e *edge, t time.Time) bool {
	return s.p.kind == schema.KindBadDeploy && e == s.p.badEdge && s.p.active(t) &&
		sc.p.version(t) == 1 && s.r.chance(s.p.share)
}

// reject serves a call the callee refuses as invalid: the callee logs the
// validation failure and answers 400. The caller's new version ignores the
// answer (see attempt), so only the callee and the caller's client span
// show it.
func (s *sim) reject(tc *traceCtx, e *edge, t time.Time, parent schema.SpanID) outcome {
	n, o := e.to, e.toOp
	pi, out, ok := s.reach(n, t)
	if !ok {
		return out
	}
	sc := scope{tc: tc, n: n, p: n.pods[pi], span: s.spanID()}
	cur := t.Add(s.r.dur(200*time.Microsecond, 2*time.Millisecond))
	s.chatter(sc, o, cur, 0)
	cur = cur.Add(s.r.latency(o.self) / 3)
	body, exc := validationMsg(n, o, s.p.badField)
	kv := []string{schema.AttrHTTPStatus, "400"}
	if exc != "" {
		kv = append(kv, schema.AttrExceptionType, exc)
	}
	s.log(sc, line{at: cur, sev: schema.SeverityError, logger: logger(n, "web"), body: body, fault: true, kv: kv})
	out = outcome{end: cur.Add(300 * time.Microsecond), status: 400, fail: failStatus, fault: true, ignored: true}
	s.finish(sc, o, t, parent, out)
	return out
}

// validationMsg is what a service logs when it rejects a request whose
// field is missing, and the exception type.
func validationMsg(n *node, o *op, field string) (string, string) {
	switch n.stack {
	case stackJava:
		return fmt.Sprintf("Validation failed for argument [0] in public ResponseEntity %sController.handle(Request): [Field error in object 'request' on field '%s': rejected value [null]; default message [must not be null]]",
			pascal(baseName(n)), field), "org.springframework.web.bind.MethodArgumentNotValidException"
	case stackPython:
		return fmt.Sprintf("1 validation error for Request: %s: field required (type=value_error.missing) on %s", field, o.spanName()), "pydantic.ValidationError"
	case stackNode:
		return fmt.Sprintf(`ValidationError: "%s" is required (%s)`, field, o.spanName()), "ValidationError"
	}
	return fmt.Sprintf("invalid request to %s: missing required field %q", o.spanName(), field), ""
}

// peerKV is the attribute by which e's caller names its callee.
func peerKV(e *edge) []string {
	switch e.spell {
	case spellAddress:
		return []string{"server.address", hostOf(e)}
	case spellURL:
		return []string{"url.full", url(e)}
	case spellRemote:
		return []string{"remote.service", e.to.name}
	case spellPeerKey:
		return []string{"peer", e.to.name}
	}
	return []string{schema.AttrPeerService, e.to.name}
}
