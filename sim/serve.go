package sim

import (
	"strconv"
	"strings"
	"time"

	"github.com/faultline/faultline/schema"
)

// failure is how a call failed, as its caller sees it.
type failure uint8

const (
	okay         failure = iota
	failStatus           // an error response (status)
	failRefused          // connection refused
	failReset            // connection reset or EOF
	failTimeout          // the caller's timeout fired
	failBreaker          // rejected by an open circuit breaker
	failBulkhead         // rejected by a full bulkhead
	failPool             // no database connection from the pool in time
)

// outcome is what a call returns to its caller, at true time end.
type outcome struct {
	end        time.Time
	status     int
	fail       failure
	fault      bool // the fault made it fail or slow
	ignored    bool // the caller's client ignores the failure (a silent bad deploy)
	retryAfter time.Duration
	attempts   int
	err        string // the error as the caller's client reports it
	label      string // a classifier's answer
	reason     string // the callee's own words for a refusal, which its caller quotes
}

// serve simulates service n handling operation o of trace tc, from t.
func (s *sim) serve(tc *traceCtx, n *node, o *op, t time.Time, parent schema.SpanID) outcome {
	pi, out, ok := s.reach(n, t)
	if !ok {
		return out
	}
	sc := scope{tc: tc, n: n, p: n.pods[pi], span: s.spanID()}
	if !out.end.IsZero() { // the pod dies with this request in flight
		s.chatter(sc, o, t.Add(time.Millisecond), 0)
		return out
	}
	in, back := s.wire(n, pi, t)
	t = t.Add(in)
	out = s.handle(sc, o, t)
	s.finish(sc, o, t, parent, out)
	if in > 0 || s.cpuFactor(n, t) > 1 {
		out.end = out.end.Add(back)
		out.fault = out.fault || out.fail == okay // slow because of the fault
	}
	return out
}

// reach picks the pod a request at t lands on. When the service cannot be
// reached it returns ok false and the refusal; a zero-end outcome otherwise,
// or one whose end is the moment the pod is killed mid-request.
func (s *sim) reach(n *node, t time.Time) (int, outcome, bool) {
	refused := outcome{end: t.Add(s.r.dur(200*time.Microsecond, time.Millisecond)), fail: failRefused, fault: true}
	if s.p.isDown(n, t) {
		return 0, refused, false
	}
	start := s.r.IntN(len(n.pods))
	for i := range n.pods {
		pi := (start + i) % len(n.pods)
		if !n.pods[pi].live(t) {
			continue
		}
		refuses, gone, kill := s.p.podState(n, pi, t, 2*time.Second)
		if refuses {
			return 0, refused, false
		}
		if gone {
			continue
		}
		if !kill.IsZero() {
			return pi, outcome{end: kill, fail: failReset, fault: true}, true
		}
		return pi, outcome{}, true
	}
	return 0, refused, false
}

// handle runs operation o: faults at this service, its calls, its own work.
func (s *sim) handle(sc scope, o *op, t time.Time) outcome {
	cpu := s.cpuFactor(sc.n, t)
	cur := t.Add(scaled(s.r.dur(200*time.Microsecond, 2*time.Millisecond), cpu))
	s.chatter(sc, o, cur, 0)
	if out, hit := s.rateLimited(sc, cur); hit {
		return out
	}
	wait := s.p.pauseAt(sc.n, cur)
	cur = cur.Add(wait)
	if out, hit := s.regression(sc, o, cur); hit {
		return out
	}
	s.noise(sc, cur)
	cur, out, failed := s.acquire(sc, o, cur)
	if failed {
		return out
	}
	end, out := s.calls(sc, o, cur)
	if out.fail != okay {
		return out
	}
	if o.gate {
		if out, refused := s.claimGate(sc, end); refused {
			return out
		}
	}
	if o.audit {
		s.auditFail(sc, end)
	}
	cur = end.Add(scaled(s.r.latency(o.self), cpu))
	s.chatter(sc, o, cur, 1)
	if o.labels != nil {
		out := outcome{end: cur, status: okStatus(o)}
		out.label, out.fault = s.classify(sc, o, cur)
		out.fault = out.fault || wait > 0
		return out
	}
	if wait > time.Second && s.r.chance(0.5) {
		s.log(sc, line{at: cur, sev: schema.SeverityWarn, logger: logger(sc.n, "web"),
			body: slowRequestMsg(sc.n, o, cur.Sub(t)), fault: true})
	}
	return outcome{end: cur, status: okStatus(o), fault: wait > 0 || out.fault}
}

// calls makes o's calls, in sequence or in parallel; on a failure without
// fallback it logs the handler's error and returns the response it sends.
func (s *sim) calls(sc scope, o *op, cur time.Time) (time.Time, outcome) {
	if o.parallel {
		return s.fanOut(sc, o, cur)
	}
	skip, slow := 0, false
	for i, e := range o.calls {
		if skip > 0 {
			skip--
			continue
		}
		out := s.invoke(sc, e, cur)
		cur = out.end
		if out.fail == okay {
			if o.hit > 0 && e.to.role == roleCache && s.r.chance(o.hit) {
				if skip = o.hitSkip; skip > 0 {
					continue // the cache answered the lookup; the rest goes on
				}
				break // answered from the cache
			}
			if out.label != "" && out.label == s.p.newLabel {
				return s.unknownLabel(sc, o, o.calls[i+1:], out, cur)
			}
			slow = slow || out.fault && s.g.sys != nil // a seed system's answer, late because of the fault
			continue
		}
		if s.fallback(sc, e, out) {
			cur = cur.Add(s.r.dur(time.Millisecond, 15*time.Millisecond))
			slow = slow || out.fault && s.g.sys != nil
			if e.alt == nil {
				continue
			}
			if out = s.invoke(sc, e.alt, cur); out.fail == okay {
				cur = out.end
				continue
			}
			e = e.alt
		}
		return cur, s.compensate(sc, o, s.failJob(sc, o, e, s.fail(sc, e, out)))
	}
	if o.onFail != nil {
		return s.honestFail(sc, o, cur)
	}
	return cur, outcome{fault: slow}
}

// fanOut makes o's calls concurrently; the first failure without fallback fails the request.
func (s *sim) fanOut(sc scope, o *op, cur time.Time) (time.Time, outcome) {
	end := cur
	var bad *edge
	var first outcome
	for _, e := range o.calls {
		out := s.invoke(sc, e, cur)
		if out.fail != okay && !s.fallback(sc, e, out) && (bad == nil || out.end.Before(first.end)) {
			bad, first = e, out
		}
		if out.end.After(end) {
			end = out.end
		}
	}
	if bad != nil {
		return first.end, s.compensate(sc, o, s.fail(sc, bad, first))
	}
	return end, outcome{}
}

// fallback logs the degraded path when the edge has one.
func (s *sim) fallback(sc scope, e *edge, out outcome) bool {
	if e.fallback == "" {
		return false
	}
	at := out.end.Add(100 * time.Microsecond)
	sev := schema.SeverityWarn
	if e.fallbackErr {
		sev = schema.SeverityError
	}
	s.log(sc, line{at: at, sev: sev, logger: logger(sc.n, "client"),
		body: fallbackMsg(sc.n, e, out), fault: out.fault, kv: peerKV(e), cause: out.fail})
	if e.to.role != roleCache && e.alt == nil && s.r.chance(0.4) { // the cached copy is missing too: next fallback
		s.log(sc, line{at: at.Add(s.r.dur(300*time.Microsecond, 2*time.Millisecond)), sev: schema.SeverityWarn,
			logger: logger(sc.n, "client"), body: secondFallbackMsg(sc.n, e), fault: out.fault})
	}
	return true
}

// fail logs the handler's error for a failed call and returns its response.
func (s *sim) fail(sc scope, e *edge, out outcome) outcome {
	at := out.end.Add(s.r.dur(100*time.Microsecond, 2*time.Millisecond))
	body, exc := handlerErrorMsg(sc.n, e, out)
	kv := peerKV(e)
	if out.fail == failBreaker && e.breaker.keyed {
		kv = breakerKV(e) // a breaker keyed by provider:region names no dependency
	}
	if exc != "" {
		kv = append(kv, schema.AttrExceptionType, exc)
	}
	s.log(sc, line{at: at, sev: schema.SeverityError, logger: logger(sc.n, "web"), body: body, fault: out.fault, kv: kv, cause: out.fail})
	return outcome{end: at.Add(200 * time.Microsecond), status: failStatusCode(sc.n, out), fail: failStatus, fault: out.fault}
}

// compensate writes the saga's compensation when a creating operation
// failed half-way (payment failed → cancel the order), as some services do.
func (s *sim) compensate(sc scope, o *op, out outcome) outcome {
	if o.method != "POST" || sc.n.flavor%3 != 1 {
		return out
	}
	at := out.end.Add(s.r.dur(time.Millisecond, 6*time.Millisecond))
	s.log(sc, line{at: at, sev: schema.SeverityWarn, logger: logger(sc.n, "saga"),
		body: compensationMsg(sc.n, s.r.between(100000, 999999)), fault: out.fault})
	out.end = at.Add(time.Millisecond)
	return out
}

// finish writes the server (or consumer) span and the access log line.
func (s *sim) finish(sc scope, o *op, t time.Time, parent schema.SpanID, out outcome) {
	status := strconv.Itoa(out.status)
	kind := kindServer
	kv := []string{schema.AttrHTTPStatus, status, "http.request.method", o.method, "http.route", o.route}
	if o.method == "" {
		kv = []string{"rpc.system", "grpc", "rpc.method", o.route, schema.AttrRPCGRPCStatus, grpcStatusNumber(out.status)}
	}
	if strings.HasPrefix(o.route, "consume ") {
		kind, kv = kindConsumer, []string{"messaging.operation.type", "process"}
	}
	if o.internal {
		kind, kv = kindInternal, []string{"job.namespace", o.ns}
	}
	failed := out.status >= 500
	s.span(sc, spanRec{id: sc.span, parent: parent, name: o.spanName(), kind: kind, start: t, end: out.end,
		failed: failed, msg: httpStatusText(out.status), fault: out.fault && failed, kv: kv})
	if sc.n.access == 0 || kind == kindConsumer {
		return
	}
	sev := schema.SeverityInfo
	if sc.n.access == 2 && out.status >= 500 {
		sev = schema.SeverityError
	} else if sc.n.access == 2 && out.status >= 400 {
		sev = schema.SeverityWarn
	}
	kv = kv[:2]
	if o.method == "" {
		kv = []string{schema.AttrRPCGRPCStatus, grpcStatusNumber(out.status)}
	}
	s.log(sc, line{at: out.end, sev: sev, logger: logger(sc.n, "access"), body: accessMsg(sc.n, o, out, out.end.Sub(t), s.r.between(1000, 99999)),
		fault: out.fault, kv: kv})
}

func okStatus(o *op) int {
	switch o.method {
	case "POST":
		return 201
	case "DELETE":
		return 204
	}
	return 200
}

// failStatusCode is the status a service answers when a call failed.
func failStatusCode(n *node, out outcome) int {
	java := n.stack == stackJava || n.stack == stackPython
	switch out.fail {
	case failTimeout:
		if java {
			return 500
		}
		return 504
	case failRefused, failReset:
		return pickBy(n, 3, []int{502, 503, 500})
	case failBreaker, failBulkhead:
		return 503
	case failPool:
		if java {
			return 500
		}
		return 503
	}
	if out.status == 429 && n.role == roleEntry {
		return 429
	}
	if out.status == 429 {
		return 503
	}
	return pickBy(n, 4, []int{500, 502})
}

// pickBy picks the element of xs that node n always picks for salt.
func pickBy[T any](n *node, salt int, xs []T) T {
	h := uint32(n.flavor)*2654435761 + uint32(salt)*40503
	return xs[(h>>7)%uint32(len(xs))]
}
