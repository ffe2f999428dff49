package sim

import (
	"fmt"
	"strings"
	"time"
)

// makeOps gives every service its operations and their calls to deeper services.
func (b *builder) makeOps() {
	for _, nodes := range b.levels {
		for _, n := range nodes {
			k := b.r.between(1, 3)
			if n.role == roleEntry {
				k = b.r.between(3, 6)
			}
			for i := 0; i < k; i++ {
				n.ops = append(n.ops, b.newOp(n, i))
			}
		}
	}
	for lvl, nodes := range b.levels {
		deeper := b.deeperThan(lvl)
		if len(deeper) == 0 {
			continue
		}
		for _, n := range nodes {
			for _, o := range n.ops {
				b.addServiceCalls(o, lvl, deeper)
			}
		}
	}
}

// nameEntryRoutes names each entry route after the first service it calls.
func (b *builder) nameEntryRoutes() {
	for _, n := range b.g.entries {
		for _, o := range n.ops {
			if len(o.calls) > 0 {
				o.route = strings.Replace(o.route, baseName(n), baseName(o.calls[0].to), 1)
			}
		}
	}
}

func (b *builder) deeperThan(lvl int) []*node {
	var out []*node
	for l := lvl + 1; l < len(b.levels); l++ {
		out = append(out, b.levels[l]...)
	}
	return out
}

func (b *builder) addServiceCalls(o *op, lvl int, deeper []*node) {
	lo, hi := 0, 2
	if lvl == 0 {
		lo, hi = 1, 3
	}
	k := b.r.between(lo, hi)
	for _, t := range shuffled(b.r, deeper)[:min(k, len(deeper))] {
		if lvl == 0 && t.level > 2 {
			continue
		}
		b.addEdge(o, t, pick(b.r, t.ops))
	}
	o.parallel = len(o.calls) > 1 && b.r.chance(0.35)
}

// newOp makes the i-th operation of n.
func (b *builder) newOp(n *node, i int) *op {
	o := &op{owner: n, self: b.r.dur(2*time.Millisecond, 25*time.Millisecond)}
	res := baseName(n)
	if n.stack == stackGo && n.role == roleService && b.r.chance(0.4) {
		o.route = fmt.Sprintf("/%s.v1.%sService/%s", camel(res), pascal(res), grpcVerbs()[(n.flavor+i)%len(grpcVerbs())])
	} else {
		rt := routeTemplates()[(n.flavor+i*3)%len(routeTemplates())]
		o.method, o.route = rt[0], fmt.Sprintf(rt[1], res)
	}
	return o
}

// makeResources gives services databases, caches and third-party APIs.
func (b *builder) makeResources() {
	var withExternal int
	for _, n := range b.g.nodes {
		if n.role != roleService {
			continue
		}
		if b.r.chance(0.55) {
			b.attach(n, b.newResource(baseName(n)+"-db", roleDatabase), 0.7)
			n.poolName = pick(b.r, []string{"HikariPool-1", baseName(n) + "-pool", "primary"})
		}
		if b.r.chance(0.35) {
			b.attach(n, b.newResource("redis-"+baseName(n), roleCache), 0.6)
		}
		if b.r.chance(0.25) || (withExternal == 0 && n.level == len(b.levels)-1) {
			b.attach(n, b.external(externalFor(baseName(n))), 0.6)
			withExternal++
		}
	}
}

func (b *builder) external(name string) *node {
	for _, n := range b.g.nodes {
		if n.name == name {
			return n
		}
	}
	return b.newResource(name, roleExternal)
}

func (b *builder) newResource(name string, ro role) *node {
	n := &node{name: name, role: ro, level: 99}
	if ro == roleDatabase {
		n.dbSystem = pick(b.r, []string{"postgresql", "postgresql", "mysql", "mongodb"})
	}
	b.g.nodes = append(b.g.nodes, n)
	return n
}

// attach makes some of n's operations (at least one) call the resource.
func (b *builder) attach(n, res *node, p float64) {
	for i, o := range n.ops {
		if i == 0 || b.r.chance(p) {
			b.addEdge(o, res, nil)
		}
	}
}

// connectAll makes every business service reachable from an entry point.
func (b *builder) connectAll() {
	for lvl := 1; lvl < len(b.levels); lvl++ {
		for _, n := range b.levels[lvl] {
			if len(b.g.callers(n)) > 0 {
				continue
			}
			from := pick(b.r, b.levels[b.r.between(max(0, lvl-2), lvl-1)])
			b.addEdge(pick(b.r, from.ops), n, pick(b.r, n.ops))
		}
	}
}

// makeQueue adds a queue between a producer and a consumer service.
func (b *builder) makeQueue() {
	var svcs []*node
	for _, n := range b.g.nodes {
		if n.role == roleService {
			svcs = append(svcs, n)
		}
	}
	if len(svcs) < 2 {
		return
	}
	pair := shuffled(b.r, svcs)[:2]
	producer, consumer := pair[0], pair[1]
	q := b.newResource(baseName(producer)+"-events", roleQueue)
	c := &op{owner: consumer, route: "consume " + q.name, self: b.r.dur(5*time.Millisecond, 40*time.Millisecond)}
	for _, e := range consumer.ops[0].calls {
		if e.to.role != roleService {
			b.addEdge(c, e.to, e.toOp)
		}
	}
	consumer.ops = append(consumer.ops, c)
	q.consumer = c
	seen := reachable(b.g)
	var live []*op
	for _, o := range producer.ops {
		if seen[o] {
			live = append(live, o)
		}
	}
	b.addEdge(pick(b.r, live), q, c)
	b.g.queue = q
}

func (b *builder) markNoisy() {
	svcs := b.g.services()
	for _, n := range shuffled(b.r, svcs)[:b.r.between(1, 2)] {
		if n.role == roleService {
			n.noisy = true
		}
	}
}

// addEdge adds a call from o to t with the policy for its kind of target.
func (b *builder) addEdge(o *op, t *node, top *op) {
	for _, e := range o.calls {
		if e.to == t && e.toOp == top {
			return
		}
	}
	o.calls = append(o.calls, b.newEdge(o, t, top))
}

// newEdge makes a call from o to t with the policy for its kind of target,
// without adding it to o's calls.
func (b *builder) newEdge(o *op, t *node, top *op) *edge {
	e := &edge{from: o.owner, to: t, toOp: top, client: pascal(baseName(t)) + "Client"}
	b.policy(e)
	if !contains(o.owner.deps, t) {
		o.owner.deps = append(o.owner.deps, t)
	}
	return e
}

func contains(ns []*node, n *node) bool {
	for _, m := range ns {
		if m == n {
			return true
		}
	}
	return false
}
