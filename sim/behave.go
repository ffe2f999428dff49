package sim

import (
	"time"

	"github.com/faultline/faultline/schema"
)

// rateLimited answers 429 when the service is the rate-limit fault's target.
func (s *sim) rateLimited(sc scope, t time.Time) (outcome, bool) {
	if !s.p.is(schema.KindRateLimit, sc.n) || !s.r.chance(s.p.intensity(t)) {
		return outcome{}, false
	}
	end := t.Add(s.r.dur(100*time.Microsecond, 800*time.Microsecond))
	if sc.n.flavor%4 != 0 {
		s.log(sc, line{at: end, sev: schema.SeverityWarn, logger: logger(sc.n, "ratelimit"),
			body: rateLimitMsg(sc.n, s.p.retryAfter), fault: true, kv: []string{schema.AttrHTTPStatus, "429"}})
	}
	return outcome{end: end, status: 429, fail: failStatus, fault: true, retryAfter: s.p.retryAfter}, true
}

// regression fails a request with the bad deploy's deterministic error.
func (s *sim) regression(sc scope, o *op, t time.Time) (outcome, bool) {
	if !s.p.is(schema.KindBadDeploy, sc.n) || o != s.p.badOp || !s.p.active(t) || sc.p.version(t) == 0 || !s.r.chance(s.p.share) {
		return outcome{}, false
	}
	at := t.Add(s.r.latency(o.self) / 2)
	body, exc, stack := nilPointerMsg(sc.n, o)
	s.log(sc, line{at: at, sev: schema.SeverityError, logger: logger(sc.n, "web"), body: body, fault: true,
		kv: []string{schema.AttrExceptionType, exc, "exception.stacktrace", stack}})
	return outcome{end: at.Add(time.Millisecond), status: 500, fail: failStatus, fault: true}, true
}

// noise is the noisy services' everyday errors, and everyone's rare ones.
func (s *sim) noise(sc scope, t time.Time) {
	switch {
	case sc.n.noisy && s.r.chance(0.12):
		s.log(sc, line{at: t.Add(s.r.dur(0, 3*time.Millisecond)), sev: schema.SeverityError, logger: logger(sc.n, "app"),
			body: noiseMsg(sc.n, s.r)})
	case s.r.chance(0.003):
		s.log(sc, line{at: t, sev: schema.SeverityWarn, logger: logger(sc.n, "web"), body: rareWarnMsg(sc.n, s.r)})
	}
}

// chatter writes a handler's INFO lines: phase 0 on arrival, 1 when done.
func (s *sim) chatter(sc scope, o *op, t time.Time, phase int) {
	if phase == 0 && sc.n.flavor%3 == 0 {
		s.log(sc, line{at: t, sev: schema.SeverityInfo, logger: logger(sc.n, "web"), body: arrivalMsg(sc.n, o)})
	}
	if phase == 1 && s.r.chance(0.6) {
		s.log(sc, line{at: t.Add(-s.r.dur(0, time.Millisecond)), sev: schema.SeverityInfo, logger: logger(sc.n, "app"), body: businessMsg(sc.n, s.r)})
	}
}
