package sim

import (
	"slices"
	"time"

	"github.com/faultline/faultline/schema"
)

// planFault chooses the fault's target and schedule.
func planFault(r rng, g *graph, cfg Config, kind schema.Kind) *plan {
	from := cfg.Start.Add(cfg.Baseline)
	to := from.Add(cfg.Window)
	p := &plan{kind: kind, onset: from.Add(r.dur(45*time.Second, 150*time.Second)),
		ramp: r.dur(10*time.Second, 60*time.Second), share: 0.5 + 0.45*r.Float64()}
	p.end = to.Add(time.Minute)
	if r.chance(0.4) {
		p.end = p.onset.Add(time.Duration(float64(to.Sub(p.onset)) * (0.65 + 0.25*r.Float64())))
	}
	if planSeed(r, g, p, cfg.FaultType) {
		return p
	}
	switch cfg.FaultType {
	case typeSilentDB:
		planSilentDB(r, g, p)
		return p
	case typeSilentAPI:
		planSilentAPI(r, g, cfg, p)
		return p
	case typeSilentDeploy:
		planSilentDeploy(r, g, p)
		return p
	}
	switch kind {
	case schema.KindNetworkDelay:
		planNetworkDelay(r, g, p)
	case schema.KindCPUStarvation:
		planCPU(r, g, p)
	case schema.KindDependencyTimeout:
		planDependency(r, g, p)
	case schema.KindDBPoolExhaustion:
		planPool(r, g, p)
	case schema.KindResourceGC:
		planGC(r, g, p)
	case schema.KindBadDeploy:
		planDeploy(r, g, p)
	case schema.KindRateLimit:
		planRateLimit(r, g, p)
	case schema.KindPoisonMessage:
		planPoison(r, g, p)
	case schema.KindConnectionRefused:
		planCrash(r, g, p)
	case schema.KindOOM:
		planOOM(r, g, p)
	}
	return p
}

// candidates are the quiet business services with callers.
func candidates(g *graph, ok func(*node) bool) []*node {
	var out []*node
	for _, n := range g.nodes {
		if n.role == roleService && !n.noisy && len(g.callers(n)) > 0 && (ok == nil || ok(n)) {
			out = append(out, n)
		}
	}
	if len(out) == 0 && ok != nil {
		return candidates(g, nil)
	}
	return busy(g, out)
}

func planDependency(r rng, g *graph, p *plan) {
	var ext []*node
	for _, n := range g.nodes {
		if n.role == roleExternal {
			ext = append(ext, n)
		}
	}
	p.target = pick(r, busy(g, ext))
	p.faultType = "third-party-slow"
	p.share = 0.7 + 0.25*r.Float64()
}

func planPool(r rng, g *graph, p *plan) {
	p.target = pick(r, candidates(g, func(n *node) bool { return n.poolName != "" }))
	if p.target.poolName == "" {
		b := &builder{r: r, g: g, policies: map[[2]*node]*edgePolicy{}}
		b.attach(p.target, b.newResource(baseName(p.target)+"-db", roleDatabase), 0.7)
		p.target.poolName = "HikariPool-1"
	}
	p.faultType = "connection-pool-exhaustion"
	p.poolTimeout = pick(r, []time.Duration{1000, 1500, 2000, 2500}) * time.Millisecond
	p.target.poolTimeout = p.poolTimeout
	for _, e := range g.callers(p.target) {
		e.timeout = max(e.timeout, p.poolTimeout+time.Second)
	}
}

func planGC(r rng, g *graph, p *plan) {
	p.target = pick(r, candidates(g, func(n *node) bool { return n.stack != stackPython }))
	p.faultType = "gc-pressure"
	p.pauses = pauses(r, p.onset, p.end, 1500*time.Millisecond, 8*time.Second)
}

// pauses lays out stop-the-world pauses from t to end, more often and longer as time goes on.
func pauses(r rng, t, end time.Time, lo, hi time.Duration) []interval {
	var out []interval
	for start := t; t.Before(end); {
		grow := min(1, float64(t.Sub(start))/float64(90*time.Second))
		d := r.dur(lo/2+time.Duration(float64(lo/2)*grow), lo+time.Duration(float64(hi-lo)*grow))
		out = append(out, interval{t, t.Add(d)})
		gap := 1 - 0.85*grow // the collector runs back to back as the heap fills
		t = t.Add(d + r.dur(time.Duration(float64(6*time.Second)*gap), time.Duration(float64(20*time.Second)*gap)))
	}
	return out
}

func planDeploy(r rng, g *graph, p *plan) {
	p.target = pick(r, candidates(g, nil))
	p.faultType = "regression-after-deploy"
	var onPath []*op
	for _, e := range g.callers(p.target) {
		if e.toOp != nil {
			onPath = append(onPath, e.toOp)
		}
	}
	p.badOp = pick(r, onPath)
	p.share = 0.4 + 0.6*r.Float64()
	p.ramp = 0
	at := p.onset.Add(-r.dur(2*time.Second, 8*time.Second))
	for _, pd := range p.target.pods {
		pd.deployAt = at
		at = at.Add(r.dur(15*time.Second, 40*time.Second))
	}
	p.end = p.end.Add(time.Hour) // no rollback inside the window
}

func planRateLimit(r rng, g *graph, p *plan) {
	p.target = pick(r, candidates(g, func(n *node) bool { return n.level >= 2 }))
	p.faultType = "rate-limit-retry-storm"
	p.retryAfter = pick(r, []time.Duration{1, 1, 2, 5}) * time.Second
	for _, e := range g.callers(p.target) {
		e.attempts, e.jitter = r.between(3, 4), false
	}
}

func planPoison(r rng, g *graph, p *plan) {
	p.target = g.queue.consumer.owner
	p.faultType = "poison-message"
	p.share = 0.25 + 0.5*r.Float64()
	p.visibility = pick(r, []time.Duration{5, 10, 15, 30}) * time.Second
	p.maxReceive = r.between(3, 5)
}

func planCrash(r rng, g *graph, p *plan) {
	p.target = pick(r, candidates(g, nil))
	p.faultType = "crash-loop"
	back := 10 * time.Second
	for t := p.onset; t.Before(p.end); back = min(2*back, 5*time.Minute) {
		up := r.dur(3*time.Second, 8*time.Second)
		p.down = append(p.down, interval{t, t.Add(back)})
		t = t.Add(back + up)
	}
}

func planOOM(r rng, g *graph, p *plan) {
	p.target = pick(r, candidates(g, nil))
	p.faultType = "oom-kill"
	p.restart = r.dur(8*time.Second, 25*time.Second)
	p.kills = make([][]time.Time, len(p.target.pods))
	for i := range p.target.pods {
		for t := p.onset.Add(r.dur(25*time.Second, 50*time.Second)); t.Before(p.end); {
			p.kills[i] = append(p.kills[i], t)
			p.pauses = append(p.pauses, pauses(r, t.Add(-25*time.Second), t, 400*time.Millisecond, 4*time.Second)...)
			t = t.Add(p.restart + r.dur(30*time.Second, 60*time.Second))
		}
	}
	slices.SortFunc(p.pauses, func(a, b interval) int { return a.from.Compare(b.from) })
}
