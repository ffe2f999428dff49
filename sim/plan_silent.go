package sim

import (
	"fmt"
	"slices"
	"time"
)

// The plans of the faults whose cause logs nothing. They draw from the
// seed only after the draws every plan shares.

func planNetworkDelay(r rng, g *graph, p *plan) {
	p.target = pick(r, candidates(g, nil))
	p.faultType = "network-delay"
	p.delay = r.dur(50*time.Millisecond, 400*time.Millisecond)
	p.delayPod = -1
	if len(p.target.pods) > 1 {
		p.delayPod = r.IntN(len(p.target.pods))
	}
	p.share = 1
}

func planCPU(r rng, g *graph, p *plan) {
	p.target = pick(r, candidates(g, nil))
	p.faultType = "cpu-starvation"
	p.slowdown = 3 + 7*r.Float64()
	p.share = 1
}

// planSilentDB slows a database down: one with callers, which has no
// telemetry of its own, and whose name one of its callers' telemetry
// gives (a client span's peer.service, a structured line's attribute). A
// database that only plain-text loggers call is named nowhere in the
// data: an incident there has a cause no analysis could name, so one is
// chosen only when no database is named.
func planSilentDB(r rng, g *graph, p *plan) {
	var dbs, named []*node
	for _, n := range g.nodes {
		if n.role == roleDatabase && len(g.callers(n)) > 0 {
			dbs = append(dbs, n)
			if slices.ContainsFunc(g.callers(n), func(e *edge) bool { return namesPeers(e.from) }) {
				named = append(named, n)
			}
		}
	}
	if len(named) > 0 {
		dbs = named
	}
	p.target = pick(r, busy(g, dbs))
	p.faultType = typeSilentDB
	p.share = 0.5 + 0.4*r.Float64()
}

// namesPeers reports whether n's telemetry names the peers it calls:
// its client spans do, and so do the attributes of its structured lines
// (JSON, OTLP, logfmt); a plain-text line does not.
func namesPeers(n *node) bool {
	return n.traced || n.format == fmtOTLP || n.format == fmtLogfmt || n.format.isJSON()
}

// planSilentAPI slows the third-party API with the most callers down, and
// has its callers name it in different ways: the busiest by peer.service
// (the name truth.json gives), the others by server.address or only in
// URLs. An API with fewer than three calling services gets more callers.
func planSilentAPI(r rng, g *graph, cfg Config, p *plan) {
	share := traffic(g)
	var best *node
	var bestCallers []*node
	for _, n := range g.nodes {
		if n.role != roleExternal {
			continue
		}
		c := callerNodes(g, n)
		if best == nil || len(c) > len(bestCallers) || (len(c) == len(bestCallers) && share[n] > share[best]) {
			best, bestCallers = n, c
		}
	}
	p.target, p.faultType = best, typeSilentAPI
	p.share = 0.7 + 0.25*r.Float64()
	b := &builder{r: r, cfg: cfg, g: g, policies: map[[2]*node]*edgePolicy{}}
	for _, n := range shuffled(r, busy(g, g.services())) {
		if len(bestCallers) >= 3 {
			break
		}
		if n.role == roleService && !contains(bestCallers, n) {
			b.attach(n, best, 0.5)
			bestCallers = append(bestCallers, n)
		}
	}
	slices.SortStableFunc(bestCallers, func(a, b *node) int { return cmpDesc(share[a], share[b]) })
	spells := []spelling{spellAddress, spellURL}
	k := r.IntN(2)
	for i, c := range bestCallers {
		sp := spellPeer
		if i > 0 {
			sp = spells[(k+i)%2]
		}
		for _, e := range g.callers(best) {
			if e.from == c {
				e.spell = sp
			}
		}
	}
}

func cmpDesc(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// callerNodes lists the distinct nodes that call n, in creation order.
func callerNodes(g *graph, n *node) []*node {
	var out []*node
	for _, e := range g.callers(n) {
		if !contains(out, e.from) {
			out = append(out, e.from)
		}
	}
	return out
}

// planSilentDeploy rolls a new version of a business service out shortly
// before onset, on new pods, and makes it send one of its callees requests
// that callee rejects as invalid.
func planSilentDeploy(r rng, g *graph, p *plan) {
	seen := reachable(g)
	badEdges := func(n *node) []*edge {
		var out []*edge
		for _, o := range n.ops {
			for _, e := range o.calls {
				if seen[o] && e.to.role == roleService && e.toOp != nil && e.to.logs() {
					out = append(out, e)
				}
			}
		}
		return out
	}
	var pool, noisy []*node // reached from an entry or through a queue, with a service callee
	for _, n := range g.nodes {
		if n.role == roleService && len(badEdges(n)) > 0 {
			if n.noisy {
				noisy = append(noisy, n)
			} else {
				pool = append(pool, n)
			}
		}
	}
	if len(pool) == 0 {
		pool = noisy
	}
	if len(pool) == 0 {
		pool = candidates(g, nil)
	}
	p.target = pick(r, busy(g, pool))
	p.faultType = typeSilentDeploy
	edges := badEdges(p.target)
	if len(edges) == 0 { // no service callee: give it one that does not call it back
		b := &builder{r: r, g: g, policies: map[[2]*node]*edgePolicy{}}
		var others []*node
		for _, n := range g.nodes {
			if n.role == roleService && n != p.target && !calls(n, p.target) {
				others = append(others, n)
			}
		}
		to := pick(r, others)
		b.addEdge(p.target.ops[0], to, pick(r, to.ops))
		edges = badEdges(p.target)
	}
	p.badEdge = pick(r, edges)
	p.badField = pick(r, []string{"currency", "tenant_id", "idempotency_key", "region", "schema_version", "locale", "priority", "checksum"})
	p.share = 0.5 + 0.5*r.Float64()
	p.ramp = 0
	rollOut(r, p, p.onset.Add(-r.dur(2*time.Second, 8*time.Second)))
	p.end = p.end.Add(time.Hour) // no rollback inside the window
}

// rollOut replaces the target's pods one by one from at: a new pod (new
// replica set, new name, the new version) starts, then an old one stops.
func rollOut(r rng, p *plan, at time.Time) {
	n := p.target
	rs := r.hexID(5)[:9] + r.hexID(1)[:1]
	p.oldPods = append([]*pod(nil), n.pods...)
	for _, old := range p.oldPods {
		np := &pod{name: fmt.Sprintf("%s-%s-%s", n.name, rs, podSuffix(r)), host: old.host, skew: old.skew,
			ip:   fmt.Sprintf("10.%d.%d.%d", r.between(1, 3), r.between(0, 255), r.between(2, 254)),
			from: at, deployAt: at.Add(-10 * time.Second)}
		n.pods = append(n.pods, np)
		old.until = at.Add(r.dur(time.Second, 4*time.Second))
		at = at.Add(r.dur(15*time.Second, 40*time.Second))
	}
}

// calls reports whether n calls m, directly or not.
func calls(n, m *node) bool {
	seen := map[*node]bool{}
	var walk func(*node) bool
	walk = func(x *node) bool {
		if x == m {
			return true
		}
		if seen[x] {
			return false
		}
		seen[x] = true
		for _, d := range x.deps {
			if d.role == roleQueue && d.consumer != nil {
				d = d.consumer.owner
			}
			if walk(d) {
				return true
			}
		}
		return false
	}
	return walk(n)
}
