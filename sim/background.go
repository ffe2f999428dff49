package sim

import (
	"time"

	"github.com/faultline/faultline/schema"
)

// background writes what services log outside requests: health checks,
// the noisy services' periodic errors, and the fault's own lines (restarts,
// GC pauses, kills, crash loops, pool and DLQ warnings).
func (s *sim) background(from, to time.Time) {
	for _, n := range s.g.services() {
		for _, p := range n.pods {
			s.periodic(n, p, from, to)
		}
	}
	s.faultLines()
	s.seedLines(from, to)
}

// periodic writes a pod's health checks and, for noisy services, scheduled-job errors.
func (s *sim) periodic(n *node, p *pod, from, to time.Time) {
	sc := scope{n: n, p: p}
	every := s.r.dur(10*time.Second, 30*time.Second)
	if !p.until.IsZero() {
		to = p.until
	}
	for t := from.Add(s.r.dur(0, every)); t.Before(to); t = t.Add(every + s.r.dur(0, time.Second)) {
		if !p.live(t) {
			continue
		}
		if n.access != 0 && n.flavor%2 == 0 {
			s.log(sc, line{at: t, sev: schema.SeverityInfo, logger: logger(n, "access"), body: "GET /healthz 200"})
		}
		if n.noisy && s.r.chance(0.5) {
			s.log(sc, line{at: t.Add(s.r.dur(0, 5*time.Second)), sev: schema.SeverityError, logger: logger(n, "scheduler"),
				body: "scheduled job " + baseName(n) + "-sync failed: " + noiseMsg(n, s.r)})
		}
	}
}

// faultLines writes the lines of the fault that belong to no request.
func (s *sim) faultLines() {
	n := s.p.target
	switch s.p.kind {
	case schema.KindBadDeploy:
		if s.p.badEdge != nil || s.p.oldPods != nil {
			s.rolloutLines(n)
			return
		}
		for _, p := range n.pods {
			s.restart(n, p, p.deployAt, false)
		}
	case schema.KindResourceGC:
		s.gcLines(n)
	case schema.KindOOM:
		s.gcLines(n)
		s.oomLines(n)
	case schema.KindConnectionRefused:
		if !n.logs() {
			s.healthLines(n)
			return
		}
		s.crashLines(n)
	case schema.KindDBPoolExhaustion:
		s.poolLines(n)
	case schema.KindPoisonMessage:
		s.dlqLines(n)
	case schema.KindRateLimit:
		s.limiterLines(n)
	}
}

// restart writes a pod's shutdown (unless it crashed) and startup lines from t.
func (s *sim) restart(n *node, p *pod, t time.Time, crashed bool) {
	sc := scope{n: n, p: p}
	if !crashed {
		s.log(sc, line{at: t.Add(-s.r.dur(time.Second, 3*time.Second)), sev: schema.SeverityInfo, logger: logger(n, "startup"), body: shutdownMsg(n)})
	}
	for _, msg := range startupMsgs(n, p, t) {
		t = t.Add(s.r.dur(20*time.Millisecond, 900*time.Millisecond))
		s.log(sc, line{at: t, sev: schema.SeverityInfo, logger: logger(n, "startup"), body: msg})
	}
}

func (s *sim) gcLines(n *node) {
	for i, iv := range s.p.pauses {
		p := n.pods[i%len(n.pods)]
		s.log(scope{n: n, p: p}, line{at: iv.to.Add(s.r.dur(0, 5*time.Millisecond)), sev: schema.SeverityWarn,
			logger: logger(n, "gc"), body: gcPauseMsg(n, iv.to.Sub(iv.from), i), fault: true})
		if i%4 == 1 {
			s.log(scope{n: n, p: p}, line{at: iv.to.Add(s.r.dur(time.Second, 3*time.Second)), sev: schema.SeverityWarn,
				logger: logger(n, "gc"), body: heapMsg(n, 0.86+0.12*s.r.Float64()), fault: true})
		}
	}
}

func (s *sim) oomLines(n *node) {
	for i, kills := range s.p.kills {
		p := n.pods[i]
		for _, k := range kills {
			if msg := oomMsg(n); msg != "" {
				s.log(scope{n: n, p: p}, line{at: k.Add(-s.r.dur(time.Millisecond, 200*time.Millisecond)), sev: schema.SeverityFatal,
					logger: logger(n, "app"), body: msg, fault: true})
			}
			s.restart(n, p, k.Add(s.p.restart-s.r.dur(2*time.Second, 5*time.Second)), true)
		}
	}
}

func (s *sim) crashLines(n *node) {
	for i, iv := range s.p.down {
		for _, p := range n.pods {
			sc := scope{n: n, p: p}
			s.log(sc, line{at: iv.from, sev: schema.SeverityFatal,
				logger: logger(n, "app"), body: crashMsg(n, i), fault: true})
			if iv.to.Before(s.p.end) || i < len(s.p.down)-1 {
				s.restart(n, p, iv.to.Add(-s.r.dur(2*time.Second, 4*time.Second)), true)
			}
		}
	}
}

func (s *sim) poolLines(n *node) {
	sc := scope{n: n, p: n.pods[0]}
	if n.stack == stackJava {
		s.log(sc, line{at: s.p.onset.Add(-s.r.dur(5*time.Second, 40*time.Second)), sev: schema.SeverityWarn, logger: logger(n, "pool"),
			body: "Connection leak detection triggered for org.postgresql.jdbc.PgConnection@" + s.r.hexID(4)[:7] + " on thread http-nio-8080-exec-7, stack trace follows", fault: true})
	}
	for t := s.p.onset.Add(s.r.dur(5*time.Second, 15*time.Second)); t.Before(s.p.end); t = t.Add(s.r.dur(20*time.Second, 40*time.Second)) {
		sc.p = n.pickPod(s.r)
		s.log(scope{n: n, p: sc.p}, line{at: t, sev: schema.SeverityWarn, logger: logger(n, "pool"),
			body: poolStatsMsg(n, s.r.between(5, 60)), fault: true})
	}
}

func (s *sim) dlqLines(n *node) {
	depth := 0
	for t := s.p.onset.Add(time.Minute); t.Before(s.p.end.Add(time.Minute)); t = t.Add(time.Minute) {
		depth += s.r.between(1, 12)
		s.log(scope{n: n, p: n.pickPod(s.r)}, line{at: t, sev: schema.SeverityWarn, logger: logger(n, "messaging"),
			body: dlqDepthMsg(s.g.queue, depth), fault: true})
	}
}

func (s *sim) limiterLines(n *node) {
	if n.flavor%4 != 0 {
		return
	}
	for t := s.p.onset.Add(10 * time.Second); t.Before(s.p.end); t = t.Add(10 * time.Second) {
		s.log(scope{n: n, p: n.pickPod(s.r)}, line{at: t, sev: schema.SeverityWarn, logger: logger(n, "ratelimit"),
			body: limiterSummaryMsg(n, s.r.between(40, 900)), fault: true})
	}
}

// rolloutLines writes a rolling deploy's lines: each new pod's startup,
// each old pod's shutdown as its replacement is ready.
func (s *sim) rolloutLines(n *node) {
	for _, p := range n.pods {
		if p.from.IsZero() {
			continue
		}
		t := p.from.Add(-s.r.dur(2*time.Second, 6*time.Second))
		for _, msg := range startupMsgs(n, p, p.from) {
			t = t.Add(s.r.dur(20*time.Millisecond, 900*time.Millisecond))
			s.log(scope{n: n, p: p}, line{at: t, sev: schema.SeverityInfo, logger: logger(n, "startup"), body: msg})
		}
	}
	for _, p := range s.p.oldPods {
		s.log(scope{n: n, p: p}, line{at: p.until.Add(-s.r.dur(time.Second, 3*time.Second)), sev: schema.SeverityInfo,
			logger: logger(n, "startup"), body: shutdownMsg(n)})
	}
}
