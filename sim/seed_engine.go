package sim

import (
	"slices"
	"time"

	"github.com/faultline/faultline/schema"
)

// What the seed systems do while requests run: the job queue's breaker
// per namespace, the triage workflow acting on its classifier's labels,
// and redelivery to a dead letter queue. Each hook returns at once,
// drawing nothing from the seed, outside its system.

// nsBreaker is the job queue's breaker for one namespace. It holds no
// state of its own: at every claim it counts the jobs the namespace's
// holders failed since the later of a day ago and the last reset, as read
// from the audit log, and is open at or over the threshold. Only a person's
// reset closes it; failures before the reset no longer count.
type nsBreaker struct {
	fails     []nsFail
	reset     time.Time // the last reset
	openedAt  time.Time // the first refusal since the last reset; zero none
	resetAt   time.Time // when a person resets it, once it refused
	resets    int
	threshold int
}

// nsFail is one job a holder failed, in the audit log.
type nsFail struct {
	at    time.Time
	fault bool
}

// breakerWindow is how far back the job queue's breaker counts failures.
const breakerWindow = 24 * time.Hour

func (s *sim) nsBreaker(ns string) *nsBreaker {
	if s.nsb == nil {
		s.nsb = map[string]*nsBreaker{}
	}
	b := s.nsb[ns]
	if b == nil {
		c := s.g.sys.claims
		b = &nsBreaker{reset: c.lastReset[ns], threshold: c.threshold}
		s.nsb[ns] = b
	}
	return b
}

// count is the failures since `since` known at t, and whether most were the fault's.
func (b *nsBreaker) count(since, t time.Time) (int, bool) {
	n, faulty := 0, 0
	for _, f := range b.fails {
		if !f.at.Before(since) && f.at.Before(t) {
			n++
			if f.fault {
				faulty++
			}
		}
	}
	return n, n > 0 && 2*faulty >= n
}

// claimGate refuses a claim of sc's namespace while its breaker is open.
func (s *sim) claimGate(sc scope, t time.Time) (outcome, bool) {
	if sc.tc == nil || sc.tc.ns == "" {
		return outcome{}, false
	}
	ns := sc.tc.ns
	b := s.nsBreaker(ns)
	if !b.openedAt.IsZero() && !t.Before(b.resetAt) {
		s.resetNamespace(sc.n, ns, b)
	}
	since := t.Add(-breakerWindow)
	if b.reset.After(since) {
		since = b.reset
	}
	n, faulty := b.count(since, t)
	if n < b.threshold {
		return outcome{}, false
	}
	if b.openedAt.IsZero() {
		b.openedAt = t
		b.resetAt = t.Add(s.r.dur(2*time.Minute, 5*time.Minute) << min(b.resets, 2))
	}
	at := t.Add(s.r.dur(100*time.Microsecond, time.Millisecond))
	msg := nsRefusalMsg(sc.n, ns, n, b.threshold, since, s.g.sys.claims.resetters)
	sev := pickBy(sc.n, 22, []schema.Severity{schema.SeverityWarn, schema.SeverityError, schema.SeverityInfo})
	s.log(sc, line{at: at, sev: sev, logger: logger(sc.n, "claims"), body: msg, fault: faulty,
		kv: []string{"job.namespace", ns, "breaker.failed", itoa(n), "breaker.threshold", itoa(b.threshold)}})
	status := pickBy(sc.n, 23, []int{503, 503, 409, 423})
	return outcome{end: at.Add(200 * time.Microsecond), status: status, fail: failStatus, fault: faulty, reason: msg}, true
}

// resetNamespace is a person's reset of ns's breaker, at b.resetAt.
func (s *sim) resetNamespace(n *node, ns string, b *nsBreaker) {
	since := b.resetAt.Add(-breakerWindow)
	if b.reset.After(since) {
		since = b.reset
	}
	failed, _ := b.count(since, b.resetAt)
	actor := pick(s.r, s.g.sys.claims.resetters)
	s.log(scope{n: n, p: n.pickPod(s.r)}, line{at: b.resetAt, sev: schema.SeverityInfo, logger: logger(n, "audit"),
		body: nsResetMsg(n, ns, actor, failed, b.threshold, b.resetAt), kv: []string{"job.namespace", ns, "audit.action", "job-breaker-reset"}})
	b.reset, b.openedAt = b.resetAt, time.Time{}
	b.resets++
}

// failJob reports a holder's failed job: the holder fails it (the audit
// log's job-fail), which its namespace's breaker counts. A refused claim
// is no job and is not reported.
func (s *sim) failJob(sc scope, o *op, e *edge, out outcome) outcome {
	if o.onFail == nil || e.claim || sc.tc == nil {
		return out
	}
	s.nsBreaker(sc.tc.ns).fails = append(s.nsBreaker(sc.tc.ns).fails, nsFail{at: out.end, fault: out.fault})
	res := s.invoke(sc, o.onFail, out.end.Add(s.r.dur(time.Millisecond, 5*time.Millisecond)))
	out.end = res.end
	return out
}

// honestFail is a holder failing a job whose calls all went well, as holders
// do now and then (the work is not done, the tests fail): the breaker
// counts these too.
func (s *sim) honestFail(sc scope, o *op, cur time.Time) (time.Time, outcome) {
	if !s.r.chance(0.0008) {
		return cur, outcome{}
	}
	sev := pickBy(sc.n, 24, []schema.Severity{schema.SeverityWarn, schema.SeverityError})
	s.log(sc, line{at: cur, sev: sev, logger: logger(sc.n, "jobs"), body: honestFailMsg(sc.n, o.ns, s.r),
		kv: []string{"job.namespace", o.ns}})
	s.nsBreaker(o.ns).fails = append(s.nsBreaker(o.ns).fails, nsFail{at: cur})
	out := s.invoke(sc, o.onFail, cur.Add(s.r.dur(time.Millisecond, 5*time.Millisecond)))
	return out.end, outcome{}
}

// auditFail is the job queue writing a holder's failed job to its audit log.
func (s *sim) auditFail(sc scope, t time.Time) {
	if sc.tc == nil || sc.n.flavor%3 == 2 {
		return
	}
	s.log(sc, line{at: t, sev: schema.SeverityInfo, logger: logger(sc.n, "audit"),
		body: auditFailMsg(sc.n, sc.tc.ns, s.r.between(1000, 99999)), kv: []string{"job.namespace", sc.tc.ns, "audit.action", "job-fail"}})
}

// classify is a classifier's answer to one message, and whether the fault
// chose it: a new version answers a label its callers never had, logging
// no error.
func (s *sim) classify(sc scope, o *op, t time.Time) (string, bool) {
	label, fault := pick(s.r, o.labels), false
	if s.p.newLabel != "" && s.p.target == sc.n && s.p.active(t) && sc.p.version(t) == 1 && s.r.chance(s.p.share) {
		label, fault = s.p.newLabel, true
	}
	if sc.n.flavor%3 != 0 {
		s.log(sc, line{at: t, sev: schema.SeverityInfo, logger: logger(sc.n, "app"), body: classifiedMsg(sc.n, label, s.r)})
	}
	return label, fault
}

// unknownLabel is a workflow acting on a label its flow never had: it
// takes the branch the label names (the payment tool, without an
// approval), or hands the label to its next step, and the callee refuses.
// The workflow logs the failure, quoting the callee.
func (s *sim) unknownLabel(sc scope, o *op, rest []*edge, got outcome, cur time.Time) (time.Time, outcome) {
	e, refund := o.branch, true
	if e == nil {
		if len(rest) == 0 {
			return cur, outcome{}
		}
		e, refund = rest[0], false
	}
	cs := s.spanID()
	net := s.r.dur(300*time.Microsecond, 3*time.Millisecond)
	out := s.refuseLabel(sc.tc, e, cur.Add(net), cs, got.label, refund)
	out.end = out.end.Add(net)
	if out.fail != okay {
		out.err = clientErrorMsg(sc.n, e, out)
		if out.reason != "" {
			out.err = quotedErrorMsg(sc.n, e, out.status, out.reason)
		}
	}
	s.clientSpan(sc, e, cs, cur, out)
	return out.end, s.compensate(sc, o, s.fail(sc, e, out))
}

// refuseLabel is the callee's side: it refuses the request the label led to.
func (s *sim) refuseLabel(tc *traceCtx, e *edge, t time.Time, parent schema.SpanID, label string, refund bool) outcome {
	n, o := e.to, e.toOp
	pi, out, ok := s.reach(n, t)
	if !ok {
		return out
	}
	sc := scope{tc: tc, n: n, p: n.pods[pi], span: s.spanID()}
	cur := t.Add(s.r.dur(200*time.Microsecond, 2*time.Millisecond))
	s.chatter(sc, o, cur, 0)
	cur = cur.Add(s.r.latency(o.self) / 3)
	body, status := unknownLabelMsg(n, label, s.r.between(10000, 99999)), 422
	kv := []string{schema.AttrHTTPStatus, ""}
	switch {
	case refund && n.flavor%2 == 1 && len(o.calls) > 0: // the tool asks the PSP, which refuses a refund it cannot match
		cur, body = s.pspRefuses(sc, o.calls[0], cur)
		status, kv = 502, append(kv, peerKV(o.calls[0])...)
	case refund:
		body, status = unapprovedRefundMsg(n, s.r.between(10000, 99999), s.r.between(5, 900)), pickBy(n, 25, []int{403, 409, 403})
	}
	kv[1] = itoa(status)
	s.log(sc, line{at: cur, sev: schema.SeverityError, logger: logger(n, "web"), body: body, fault: true, kv: kv})
	out = outcome{end: cur.Add(300 * time.Microsecond), status: status, fail: failStatus, fault: true, reason: body}
	s.finish(sc, o, t, parent, out)
	return out
}

// pspRefuses is the payment tool's call to the PSP for a refund no person
// approved: the PSP answers 422 (no capture to refund against the order the
// workflow guessed) and the tool's error quotes it.
func (s *sim) pspRefuses(sc scope, e *edge, t time.Time) (time.Time, string) {
	cs := s.spanID()
	reason := pick(s.r, []string{"charge_already_refunded", "no captured payment for this order", "amount exceeds the captured amount"})
	out := outcome{end: t.Add(s.r.latency(90 * time.Millisecond)), status: 422, fail: failStatus, fault: true}
	out.err = quotedErrorMsg(sc.n, e, 422, reason)
	s.clientSpan(sc, e, cs, t, out)
	return out.end, "refund failed: " + out.err
}

// delivery is a message's delivery to its queue's consumer.
type delivery struct {
	tc     *traceCtx
	q      *node
	at     time.Time
	parent schema.SpanID
	msgID  string
	k      int // the delivery's number, from 1
}

// deliver hands a message to the queue's consumer; a failed delivery is
// made again later (redeliver), until the message has failed maxDelivery
// times; then it goes to the dead letter queue and the consumer
// compensates (cancels what the message began).
func (s *sim) deliver(tc *traceCtx, q *node, at time.Time, parent schema.SpanID, msgID string) {
	s.deliverOnce(delivery{tc: tc, q: q, at: at, parent: parent, msgID: msgID, k: 1})
}

func (s *sim) deliverOnce(d delivery) {
	c := d.q.consumer
	out := s.serve(d.tc, c.owner, c, d.at, d.parent)
	if out.fail == okay {
		return
	}
	if d.k >= d.q.maxDelivery {
		s.deadLetter(d.tc, d.q, out, d.parent, d.msgID, d.k)
		return
	}
	wait := s.r.dur(time.Second, 3*time.Second) << min(d.k-1, 4)
	if c.owner.flavor%2 == 0 {
		sc := scope{tc: d.tc, n: c.owner, p: c.owner.pickPod(s.r), span: s.spanID()}
		s.log(sc, line{at: out.end.Add(time.Millisecond), sev: schema.SeverityWarn, logger: logger(c.owner, "messaging"),
			body: redeliverMsg(c.owner, d.q, d.msgID, d.k, d.q.maxDelivery, wait), fault: out.fault,
			kv: []string{"messaging.message.id", d.msgID, "messaging.destination.name", d.q.name}})
	}
	d.at, d.k = out.end.Add(wait), d.k+1
	i := len(s.later)
	for i > 0 && s.later[i-1].at.After(d.at) {
		i--
	}
	s.later = slices.Insert(s.later, i, d)
}

// redeliver makes the redeliveries due before t, in time order, so that
// breakers and bulkheads see them when they happen.
func (s *sim) redeliver(t time.Time) {
	for len(s.later) > 0 && s.later[0].at.Before(t) {
		d := s.later[0]
		s.later = s.later[1:]
		s.deliverOnce(d)
	}
}

// deadLetter moves a message to the dead letter queue and runs the saga's
// compensation.
func (s *sim) deadLetter(tc *traceCtx, q *node, last outcome, parent schema.SpanID, msgID string, k int) {
	c := q.consumer.owner
	sc := scope{tc: tc, n: c, p: c.pickPod(s.r), span: s.spanID()}
	at := last.end.Add(s.r.dur(time.Millisecond, 20*time.Millisecond))
	kv := []string{"messaging.message.id", msgID, "messaging.destination.name", q.deadLetter}
	s.log(sc, line{at: at, sev: pickBy(c, 26, []schema.Severity{schema.SeverityError, schema.SeverityWarn}), logger: logger(c, "messaging"),
		body: deadLetterMsg(c, q, msgID, k, s.r), fault: last.fault, kv: kv})
	end := at
	if q.compensation != nil {
		out := s.invoke(sc, q.compensation, at.Add(s.r.dur(time.Millisecond, 10*time.Millisecond)))
		end = out.end
	}
	s.span(sc, spanRec{id: sc.span, parent: parent, name: "dead-letter " + q.name, kind: kindInternal, start: at.Add(-time.Millisecond),
		end: end, fault: last.fault, kv: kv})
}

// breakerKV is how a breaker keyed by provider:region is named in a line's
// attributes: by its key, not by the dependency it guards.
func breakerKV(e *edge) []string { return []string{"breaker.name", e.breaker.name} }

// healthLines are the health monitor's checks of a region's instances while
// they are down: three failures, then the instances are marked unhealthy.
func (s *sim) healthLines(n *node) {
	sys := s.g.sys
	if sys == nil || sys.monitor == nil {
		return
	}
	m := sys.monitor
	key := sys.keyOf[n]
	for _, iv := range s.p.down {
		t := iv.from
		for k := 1; k <= 3 && t.Before(iv.to); k++ {
			t = t.Add(s.r.dur(5*time.Second, 10*time.Second))
			s.log(scope{n: m, p: m.pickPod(s.r)}, line{at: t, sev: schema.SeverityWarn, logger: logger(m, "health"),
				body: healthFailMsg(m, n, key, k), fault: true, kv: []string{schema.AttrPeerService, n.name}})
		}
		if t.Before(iv.to) {
			s.log(scope{n: m, p: m.pickPod(s.r)}, line{at: t.Add(time.Second), sev: schema.SeverityError, logger: logger(m, "health"),
				body: unhealthyMsg(m, n, key), fault: true, kv: []string{schema.AttrPeerService, n.name}})
		}
	}
}

// seedLines writes a seed system's own lines outside requests: the health
// monitor's rounds, spot interruption notices.
func (s *sim) seedLines(from, to time.Time) {
	sys := s.g.sys
	if sys == nil || sys.monitor == nil {
		return
	}
	m := sys.monitor
	for t := from.Add(s.r.dur(0, time.Minute)); t.Before(to); t = t.Add(s.r.dur(50*time.Second, 70*time.Second)) {
		key := pick(s.r, sys.keys)
		s.log(scope{n: m, p: m.pickPod(s.r)}, line{at: t, sev: schema.SeverityInfo, logger: logger(m, "health"),
			body: healthRoundMsg(m, key, s.r)})
		if s.r.chance(0.08) {
			s.log(scope{n: m, p: m.pickPod(s.r)}, line{at: t.Add(s.r.dur(time.Second, 20*time.Second)), sev: schema.SeverityWarn,
				logger: logger(m, "health"), body: spotNoticeMsg(m, key, s.r)})
		}
	}
}
