package sim

import (
	"time"

	"github.com/faultline/faultline/schema"
)

// invoke makes one call along e from scope sc at t: breaker and bulkhead
// first, then attempts with retries.
func (s *sim) invoke(sc scope, e *edge, t time.Time) outcome {
	if out, rejected := s.guard(sc, e, t); rejected {
		return out
	}
	var out outcome
	for a := 1; ; a++ {
		out = s.attempt(sc, e, t)
		out.attempts = a
		s.noteBreaker(sc, e, out)
		if out.fail == okay || a >= e.attempts || !retryable(out) {
			break
		}
		wait := s.backoff(e, a, out)
		s.log(sc, line{at: out.end.Add(50 * time.Microsecond), sev: schema.SeverityWarn, logger: logger(sc.n, "client"),
			body: retryMsg(sc.n, e, a, wait, out), fault: out.fault, kv: peerKV(e)})
		t = out.end.Add(wait)
	}
	if e.bulkhead != nil {
		e.bulkhead.hold(out.end, out.fault)
	}
	return out
}

// guard applies the edge's breaker and bulkhead; rejected calls fail at once.
func (s *sim) guard(sc scope, e *edge, t time.Time) (outcome, bool) {
	fast := t.Add(s.r.dur(50*time.Microsecond, 400*time.Microsecond))
	if b := e.breaker; b != nil {
		ok, tr := b.allow(t)
		s.logTransition(sc, e, t, tr)
		if !ok {
			out := outcome{end: fast, fail: failBreaker, fault: b.faulty}
			out.err = breakerOpenMsg(sc.n, e)
			return out, true
		}
	}
	if k := e.bulkhead; k != nil {
		if full, faulty := k.full(t); full {
			out := outcome{end: fast, fail: failBulkhead, fault: faulty}
			out.err = bulkheadFullMsg(sc.n, e)
			return out, true
		}
	}
	return outcome{}, false
}

func (s *sim) noteBreaker(sc scope, e *edge, out outcome) {
	if e.breaker == nil {
		return
	}
	s.logTransition(sc, e, out.end, e.breaker.record(out.end, out.fail != okay, out.fault))
}

func (s *sim) logTransition(sc scope, e *edge, t time.Time, tr *transition) {
	if tr == nil {
		return
	}
	sev := schema.SeverityInfo
	if tr.to == open {
		sev = schema.SeverityWarn
	}
	kv := peerKV(e)
	if e.breaker.keyed {
		kv = breakerKV(e)
	}
	s.log(sc, line{at: t.Add(30 * time.Microsecond), sev: sev, logger: logger(sc.n, "breaker"),
		body: breakerTransitionMsg(sc.n, e, tr), fault: e.breaker.faulty, kv: kv})
}

// retryable reports whether a client retries after out.
func retryable(out outcome) bool {
	switch out.fail {
	case failTimeout, failRefused, failReset:
		return true
	case failStatus:
		return out.status == 429 || out.status >= 500
	}
	return false
}

// backoff is the wait before attempt a+1: exponential with jitter, honouring
// Retry-After, as a careful client does; or exponential without jitter,
// ignoring Retry-After, as the clients that cause retry storms do.
func (s *sim) backoff(e *edge, a int, out outcome) time.Duration {
	d := e.backoff << (a - 1)
	if e.jitter {
		return max(s.r.dur(d/4, d), out.retryAfter)
	}
	return d
}

// attempt makes one try along e, applying the caller's timeout, and writes
// the client span.
func (s *sim) attempt(sc scope, e *edge, t time.Time) outcome {
	cs := s.spanID()
	pre, post := s.overhead(sc, e, t)
	at := t.Add(pre)
	var in outcome
	switch e.to.role {
	case roleDatabase:
		in = s.query(sc, e, at)
	case roleCache:
		in = outcome{end: at.Add(s.r.latency(700 * time.Microsecond))}
	case roleExternal:
		in = s.external(e, at)
	case roleQueue:
		in = s.publish(sc, e, at, cs)
	default:
		net := s.r.dur(300*time.Microsecond, 3*time.Millisecond)
		if s.rejects(sc, e, at) {
			in = s.reject(sc.tc, e, at.Add(net), cs)
		} else {
			in = s.serve(sc.tc, e.to, e.toOp, at.Add(net), cs)
		}
		in.end = in.end.Add(net)
	}
	in.end = in.end.Add(post)
	out := in
	if in.end.Sub(t) > e.timeout {
		out = outcome{end: t.Add(e.timeout), fail: failTimeout, fault: in.fault}
	}
	if out.fail != okay {
		out.err = clientErrorMsg(sc.n, e, out)
		if in.reason != "" && out.fail == failStatus {
			out.err = quotedErrorMsg(sc.n, e, out.status, in.reason)
		}
	}
	s.clientSpan(sc, e, cs, t, out)
	if out.ignored { // the caller's new version does not look at the answer
		out.fail, out.err = okay, ""
	}
	return out
}

// query is a database call.
func (s *sim) query(sc scope, e *edge, t time.Time) outcome {
	if s.p.is(schema.KindDependencyTimeout, e.to) && s.p.active(t) {
		return s.slowQuery(t)
	}
	return outcome{end: t.Add(s.r.latency(4 * time.Millisecond))}
}

// acquire takes a database connection from the pool as a transaction
// begins, before the handler's work; under pool exhaustion it waits, and
// may give up after the pool's timeout.
func (s *sim) acquire(sc scope, o *op, t time.Time) (time.Time, outcome, bool) {
	if s.p.kind != schema.KindDBPoolExhaustion || s.p.target != sc.n || !s.p.active(t) || !usesDB(o) {
		return t, outcome{}, false
	}
	p := s.p.intensity(t)
	if s.r.chance(p) {
		at := t.Add(s.p.poolTimeout)
		return at, s.fail(sc, &edge{to: dbOf(o)}, outcome{end: at, fail: failPool, fault: true}), true
	}
	return t.Add(s.r.dur(0, time.Duration(float64(s.p.poolTimeout)*p))), outcome{}, false
}

func usesDB(o *op) bool { return dbOf(o) != nil }

func dbOf(o *op) *node {
	for _, e := range o.calls {
		if e.to.role == roleDatabase {
			return e.to
		}
	}
	return nil
}

// external is a call to a third-party API.
func (s *sim) external(e *edge, t time.Time) outcome {
	lat := s.r.latency(120*time.Millisecond) + 40*time.Millisecond
	if s.p.is(schema.KindConnectionRefused, e.to) {
		if s.p.isDown(e.to, t) && s.r.chance(s.p.share) {
			return outcome{end: t.Add(s.r.dur(time.Millisecond, 30*time.Millisecond)), fail: failRefused, fault: true}
		}
	}
	if s.p.is(schema.KindDependencyTimeout, e.to) && s.p.active(t) && s.p.faultType == typeRegionAPI && s.r.chance(0.35*s.p.intensity(t)) {
		return outcome{end: t.Add(lat * 2), status: pick(s.r, []int{500, 503, 503}), fail: failStatus, fault: true}
	}
	if s.p.is(schema.KindDependencyTimeout, e.to) && s.p.active(t) {
		if s.r.chance(s.p.intensity(t)) {
			return outcome{end: t.Add(s.r.dur(3500*time.Millisecond, 12*time.Second)), status: 200, fault: true}
		}
		return outcome{end: t.Add(lat * time.Duration(s.r.between(2, 8))), status: 200, fault: true}
	}
	if s.r.chance(0.002) {
		return outcome{end: t.Add(lat), status: pick(s.r, []int{502, 503}), fail: failStatus}
	}
	return outcome{end: t.Add(lat), status: 200}
}

// clientSpan writes the caller's span of one attempt.
func (s *sim) clientSpan(sc scope, e *edge, id schema.SpanID, t time.Time, out outcome) {
	kind := kindClient
	kv := peerKV(e)
	switch e.to.role {
	case roleDatabase:
		kv = append(kv, "db.system", e.to.dbSystem, "db.namespace", baseName(e.from))
		if e.to.dbName != "" {
			kv = append(kv, "db.name", e.to.dbName, "server.address", e.to.address)
		}
	case roleCache:
		kv = append(kv, "db.system", "redis")
	case roleQueue:
		kind = kindProducer
		kv = append(kv, "messaging.destination.name", e.to.name)
	default:
		if out.status != 0 {
			kv = append(kv, schema.AttrHTTPStatus, itoa(out.status))
		}
	}
	s.span(sc, spanRec{id: id, parent: sc.span, name: clientSpanName(e), kind: kind, start: t, end: out.end,
		failed: out.fail != okay, msg: out.err, fault: out.fault, kv: kv})
}
