package sim

// reachOps makes every operation of every service reachable from an entry
// point: an operation nobody calls gets a caller among the reachable
// operations of shallower services.
func (b *builder) reachOps() {
	for {
		seen := reachable(b.g)
		var orphan *op
		for _, n := range b.g.nodes {
			for _, o := range n.ops {
				if !seen[o] && n.role == roleService && o != b.consumerOp() {
					orphan = o
					break
				}
			}
			if orphan != nil {
				break
			}
		}
		if orphan == nil {
			return
		}
		b.addEdge(b.reachableCaller(seen, orphan.owner), orphan.owner, orphan)
	}
}

func (b *builder) consumerOp() *op {
	if b.g.queue == nil {
		return nil
	}
	return b.g.queue.consumer
}

// reachableCaller picks a reachable operation of a service shallower than n.
func (b *builder) reachableCaller(seen map[*op]bool, n *node) *op {
	var from []*op
	for _, m := range b.g.nodes {
		if m.level < n.level && m.logs() {
			for _, o := range m.ops {
				if seen[o] {
					from = append(from, o)
				}
			}
		}
	}
	return pick(b.r, from)
}

// reachable is the set of operations some request reaches.
func reachable(g *graph) map[*op]bool {
	seen := map[*op]bool{}
	var stack []*op
	for _, n := range g.entries {
		stack = append(stack, n.ops...)
	}
	for len(stack) > 0 {
		o := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[o] {
			continue
		}
		seen[o] = true
		for _, e := range o.calls {
			if e.toOp != nil {
				stack = append(stack, e.toOp)
			}
		}
	}
	return seen
}

// traffic estimates the share of requests that reach each node.
func traffic(g *graph) map[*node]float64 {
	share := map[*node]float64{}
	for _, n := range g.entries {
		for _, o := range n.ops {
			flow(o, 1/float64(len(g.entries)*len(n.ops)), share, 0)
		}
	}
	return share
}

func flow(o *op, p float64, share map[*node]float64, depth int) {
	share[o.owner] += p
	if depth > 12 {
		return
	}
	for _, e := range o.calls {
		if e.toOp != nil {
			flow(e.toOp, p, share, depth+1)
		} else {
			share[e.to] += p
		}
	}
}

// busy keeps the nodes that see at least a fifth of the requests, or the
// busiest one when none does.
func busy(g *graph, ns []*node) []*node {
	share := traffic(g)
	var out []*node
	var top *node
	for _, n := range ns {
		if share[n] >= 0.2 {
			out = append(out, n)
		}
		if top == nil || share[n] > share[top] {
			top = n
		}
	}
	if len(out) == 0 && top != nil {
		out = append(out, top)
	}
	return out
}
