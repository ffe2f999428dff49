package correlate

import (
	"github.com/faultline/faultline/schema"
)

// buildSpanTree indexes the services of the trace, makes one node per span
// (and a virtual node per span id that only logs carry), links children to
// parents, and attaches every log to the node of its span id. A log
// without a span id goes to the deepest span of its own service that was
// open when it was written, if any. Missing parents and parent cycles make
// roots and a warning.
func buildSpanTree(t *Trace) {
	hasSpanIDs, spans := false, 0
	for i := range t.ents {
		r := t.rec(int32(i))
		t.ents[i].svc = t.service(serviceOf(r))
		if r.SpanID != "" {
			hasSpanIDs = true
		}
		if r.Type == schema.TypeSpan {
			spans++
		}
	}
	if !hasSpanIDs {
		return
	}
	t.nodes = make([]node, 0, spans+4)
	t.spanIDs = make([]schema.SpanID, 0, spans+4)
	addSpanNodes(t)
	addLogNodes(t)
	linkParents(t)
	attachLooseLogs(t)
}

// newNode adds the node of span r.SpanID.
func newNode(t *Trace, ent int32, r *schema.Record, svc int32) int32 {
	t.nodes = append(t.nodes, node{
		ent: ent, parent: -1, first: -1, next: -1, svc: svc,
		start: r.Time.UnixNano(), end: r.End().UnixNano(),
	})
	t.spanIDs = append(t.spanIDs, r.SpanID)
	n := int32(len(t.nodes) - 1)
	if t.bySpan != nil {
		t.bySpan[r.SpanID] = n
	} else if len(t.nodes) > spanScanMax {
		t.bySpan = make(map[schema.SpanID]int32, 2*len(t.nodes))
		for i, id := range t.spanIDs {
			t.bySpan[id] = int32(i)
		}
	}
	return n
}

// spanScanMax is how many spans are looked up by a scan before a map is
// built: most traces are small, and a scan of a few ids beats hashing.
const spanScanMax = 32

// lookupSpan finds the node of a span id.
func (t *Trace) lookupSpan(id schema.SpanID) (int32, bool) {
	if t.bySpan != nil {
		n, ok := t.bySpan[id]
		return n, ok
	}
	for i, s := range t.spanIDs {
		if s == id {
			return int32(i), true
		}
	}
	return -1, false
}

func addSpanNodes(t *Trace) {
	dups := 0
	for i := range t.ents {
		r := t.rec(int32(i))
		if r.Type != schema.TypeSpan || r.SpanID == "" {
			continue
		}
		if n, ok := t.lookupSpan(r.SpanID); ok {
			// A second span with the same id (Zipkin-style shared client
			// and server spans, or a re-sent span): it joins the first.
			dups++
			t.ents[i].node = n
			continue
		}
		n := newNode(t, int32(i), r, t.ents[i].svc)
		t.ents[i].node = n
	}
	if dups > 0 {
		t.Warnf("%d spans share their span id with another span; they were merged", dups)
	}
}

// addLogNodes attaches logs to their span's node, making a virtual node for
// a span id that no span record describes.
func addLogNodes(t *Trace) {
	for i := range t.ents {
		r := t.rec(int32(i))
		if r.Type != schema.TypeLog || r.SpanID == "" {
			continue
		}
		n, ok := t.lookupSpan(r.SpanID)
		if !ok {
			n = newNode(t, -1, r, t.ents[i].svc)
		} else if ns := r.Time.UnixNano(); t.nodes[n].ent < 0 && ns > t.nodes[n].end {
			t.nodes[n].end = ns
		}
		t.ents[i].node = n
	}
}

func linkParents(t *Trace) {
	var missing []int32
	for i := range t.nodes {
		n := &t.nodes[i]
		if n.ent < 0 {
			continue
		}
		pid := t.rec(n.ent).ParentSpanID
		if pid == "" {
			continue
		}
		p, ok := t.lookupSpan(pid)
		if !ok {
			missing = append(missing, int32(i))
			continue
		}
		if p != int32(i) {
			n.parent = p
		}
	}
	placed := 0
	if !t.opts.ruleOff(ruleSpanlessParent) {
		placed = adoptOrphans(t, missing)
	}
	switch {
	case placed > 0 && placed == len(missing):
		t.Warnf("%d spans name a parent span that is not in the trace; they are placed under the calls to services without spans that enclose them [%s]", placed, ruleSpanlessParent)
	case placed > 0:
		are := "are"
		if placed == 1 {
			are = "is"
		}
		t.Warnf("%d spans name a parent span that is not in the trace; %d %s placed under the calls to services without spans that enclose them [%s], the others are shown as roots", len(missing), placed, are, ruleSpanlessParent)
	case len(missing) > 0:
		t.Warnf("%d spans name a parent span that is not in the trace; they are shown as roots", len(missing))
	}
	if cut := computeDepths(t); cut > 0 {
		t.Warnf("%d parent links formed a cycle and were cut", cut)
	}
	// Children lists in start order: nodes were made in time order, so
	// walking backwards and prepending keeps that order.
	for i := len(t.nodes) - 1; i >= 0; i-- {
		if p := t.nodes[i].parent; p >= 0 {
			t.nodes[i].next = t.nodes[p].first
			t.nodes[p].first = int32(i)
		}
	}
}

// computeDepths sets every node's depth in one pass over the parent links
// (each node is walked once), cutting any link that closes a cycle. It
// returns how many links it cut.
func computeDepths(t *Trace) int {
	const (
		unseen = iota
		onPath
		done
	)
	state := make([]uint8, len(t.nodes))
	var path []int32
	cut := 0
	for i := range t.nodes {
		path = path[:0]
		n := int32(i)
		for n >= 0 && state[n] == unseen {
			state[n] = onPath
			path = append(path, n)
			p := t.nodes[n].parent
			if p >= 0 && state[p] == onPath {
				t.nodes[n].parent = -1 // the link closes a cycle
				cut++
				p = -1
			}
			n = p
		}
		d := int32(-1)
		if n >= 0 {
			d = t.nodes[n].depth
		}
		for k := len(path) - 1; k >= 0; k-- {
			d++
			t.nodes[path[k]].depth = d
			state[path[k]] = done
		}
	}
	return cut
}

// looseLogBudget caps the log x span comparisons attachLooseLogs makes,
// so a huge trace of logs without span ids stays linear.
const looseLogBudget = 1 << 20

// attachLooseLogs gives a log without a span id the deepest real span of
// its own service that was open when it was written (or the node
// ruleSpanlessParent made for its service). Past the budget the
// remaining logs stay unattached.
func attachLooseLogs(t *Trace) {
	budget := looseLogBudget
	for i := range t.ents {
		if budget -= len(t.nodes); budget < 0 {
			return
		}
		e := &t.ents[i]
		r := t.rec(int32(i))
		if r.Type != schema.TypeLog || r.SpanID != "" {
			continue
		}
		best := int32(-1)
		for j := range t.nodes {
			n := &t.nodes[j]
			if ns := r.Time.UnixNano(); n.ent < 0 && !n.spanless || n.svc != e.svc || ns < n.start || ns > n.end {
				continue
			}
			if best < 0 || n.depth > t.nodes[best].depth {
				best = int32(j)
			}
		}
		e.node = best
	}
}
