package sim

import (
	"fmt"
	"strings"
	"time"
)

// builder builds a graph from the seed.
type builder struct {
	r        rng
	cfg      Config
	g        *graph
	suffix   string
	levels   [][]*node // business services by level, 1-based (levels[0] holds the entries)
	policies map[[2]*node]*edgePolicy
	hosts    []*host
}

type host struct {
	name string
	skew time.Duration
}

// buildGraph makes the topology, the pods and the edges' policies.
func buildGraph(r rng, cfg Config) *graph {
	b := &builder{r: r, cfg: cfg, g: &graph{topology: cfg.Topology, namespace: "shop"}, suffix: pick(r, nameSuffixes()),
		policies: map[[2]*node]*edgePolicy{}}
	b.g.ids64 = r.chance(0.25)
	b.makeHosts()
	switch cfg.Topology {
	case topoJobQueue:
		b.buildJobQueue()
		return b.g
	case topoEdge:
		b.buildEdge()
		return b.g
	case topoRouting, topoJobClaim, topoTriage, topoPayment:
		b.buildSeed(cfg.Topology)
		return b.g
	}
	b.makeServices()
	b.makeOps()
	b.makeResources()
	b.connectAll()
	b.reachOps()
	b.makeQueue()
	b.nameEntryRoutes()
	b.markNoisy()
	return b.g
}

func (b *builder) makeHosts() {
	n := b.r.between(4, 8)
	for i := 0; i < n; i++ {
		skew := b.r.dur(-b.cfg.MaxSkew, b.cfg.MaxSkew)
		if i == 0 {
			skew = 0 // the collector's host, the reference clock
		}
		b.hosts = append(b.hosts, &host{name: fmt.Sprintf("ip-10-0-%d-%d.ec2.internal", b.r.between(1, 9), b.r.between(2, 250)), skew: skew})
	}
}

func (b *builder) makeServices() {
	count := b.cfg.Services
	if count == 0 {
		count = b.r.between(7, 13)
	}
	names := shuffled(b.r, businessNames())
	depth := b.r.between(2, 4)
	if depth > count {
		depth = count
	}
	b.levels = make([][]*node, depth+1)
	entries := shuffled(b.r, entryNames())[:b.r.between(1, 2)]
	for _, name := range entries {
		n := b.newService(name, roleEntry, 0)
		b.g.entries = append(b.g.entries, n)
		b.levels[0] = append(b.levels[0], n)
	}
	for i := 0; i < count; i++ {
		name := names[i%len(names)] + b.suffix
		if i >= len(names) {
			name = fmt.Sprintf("%s-%d", name, i/len(names)+1)
		}
		lvl := 1 + i
		if i >= depth {
			lvl = b.r.between(1, depth)
		}
		b.levels[lvl] = append(b.levels[lvl], b.newService(name, roleService, lvl))
	}
	b.assignFormats()
}

func (b *builder) newService(name string, ro role, lvl int) *node {
	n := &node{name: name, role: ro, level: lvl, flavor: b.r.IntN(1 << 16)}
	n.stack = stack(b.r.IntN(4))
	if ro == roleEntry && b.r.chance(0.5) {
		n.stack = stackGo
	}
	n.versions = b.versions(n.stack)
	n.access = b.r.IntN(3)
	if ro == roleEntry && n.access == 0 {
		n.access = 2
	}
	n.app = pascal(strings.TrimSuffix(baseName(n), "-gateway")) + "Application"
	b.makePods(n)
	b.g.nodes = append(b.g.nodes, n)
	return n
}

func (b *builder) versions(s stack) [2]string {
	major, minor, patch := b.r.between(1, 3), b.r.between(0, 24), b.r.between(0, 9)
	prefix := ""
	if s == stackGo || s == stackNode {
		prefix = "v"
	}
	old := fmt.Sprintf("%s%d.%d.%d", prefix, major, minor, patch)
	if b.r.chance(0.5) {
		patch++
	} else {
		minor, patch = minor+1, 0
	}
	return [2]string{old, fmt.Sprintf("%s%d.%d.%d", prefix, major, minor, patch)}
}

func (b *builder) makePods(n *node) {
	rs := b.r.hexID(5)[:9] + b.r.hexID(1)[:1]
	b.podsOf(n, rs, b.r.between(1, 3))
}

// podsOf gives n k more pods of replica set rs.
func (b *builder) podsOf(n *node, rs string, k int) {
	for i := 0; i < k; i++ {
		h := pick(b.r, b.hosts)
		p := &pod{name: fmt.Sprintf("%s-%s-%s", n.name, rs, podSuffix(b.r)), host: h.name, skew: h.skew,
			ip: fmt.Sprintf("10.%d.%d.%d", b.r.between(1, 3), b.r.between(0, 255), b.r.between(2, 254))}
		n.pods = append(n.pods, p)
	}
}

func podSuffix(r rng) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	b := make([]byte, 5)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

// assignFormats gives each service one format, spreading formats across services.
func (b *builder) assignFormats() {
	dd := b.g.ids64 && b.r.chance(0.8)
	used := map[format]int{}
	for _, n := range b.g.nodes {
		options := formatsFor(n.stack, dd)
		best := options[0]
		for _, f := range shuffled(b.r, options) {
			if used[f] < used[best] || (used[f] == used[best] && b.r.chance(0.3)) {
				best = f
			}
		}
		used[best]++
		n.format = best
		n.viaLoki = best.needsLabels() || (best.isJSON() && b.r.chance(0.3))
		n.gzipped = b.r.chance(0.4)
		n.traced = best == fmtOTLP || b.r.chance(0.85)
	}
}
