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
	hasSpanIDs := false
	for i := range t.ents {
		r := t.rec(int32(i))
		t.ents[i].svc = t.service(r.Service)
		if r.SpanID != "" {
			hasSpanIDs = true
		}
	}
	if !hasSpanIDs {
		return
	}
	t.bySpan = make(map[schema.SpanID]int32, len(t.ents)/2+1)
	addSpanNodes(t)
	addLogNodes(t)
	linkParents(t)
	computeDepths(t)
	attachLooseLogs(t)
}

func newNode(t *Trace, ent int32, r *schema.Record, svc int32) int32 {
	t.nodes = append(t.nodes, node{
		ent: ent, parent: -1, first: -1, next: -1, svc: svc,
		start: r.Time, end: r.End(),
	})
	return int32(len(t.nodes) - 1)
}

func addSpanNodes(t *Trace) {
	dups := 0
	for i := range t.ents {
		r := t.rec(int32(i))
		if r.Type != schema.TypeSpan || r.SpanID == "" {
			continue
		}
		if n, ok := t.bySpan[r.SpanID]; ok {
			// A second span with the same id (Zipkin-style shared client
			// and server spans, or a re-sent span): it joins the first.
			dups++
			t.ents[i].node = n
			continue
		}
		n := newNode(t, int32(i), r, t.ents[i].svc)
		t.bySpan[r.SpanID] = n
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
		n, ok := t.bySpan[r.SpanID]
		if !ok {
			n = newNode(t, -1, r, t.ents[i].svc)
			t.bySpan[r.SpanID] = n
		} else if t.nodes[n].ent < 0 && r.Time.After(t.nodes[n].end) {
			t.nodes[n].end = r.Time
		}
		t.ents[i].node = n
	}
}

func linkParents(t *Trace) {
	missing := 0
	for i := range t.nodes {
		n := &t.nodes[i]
		if n.ent < 0 {
			continue
		}
		pid := t.rec(n.ent).ParentSpanID
		if pid == "" {
			continue
		}
		p, ok := t.bySpan[pid]
		if !ok {
			missing++
			continue
		}
		if p != int32(i) {
			n.parent = p
		}
	}
	if missing > 0 {
		t.Warnf("%d spans name a parent span that is not in the trace; they are shown as roots", missing)
	}
	if cut := cutCycles(t); cut > 0 {
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

// cutCycles makes a root of any node whose parent chain comes back to it.
func cutCycles(t *Trace) int {
	cut := 0
	limit := len(t.nodes)
	for i := range t.nodes {
		p := t.nodes[i].parent
		for steps := 0; p >= 0 && steps <= limit; steps++ {
			if p == int32(i) {
				t.nodes[i].parent = -1
				cut++
				break
			}
			p = t.nodes[p].parent
		}
	}
	return cut
}

func computeDepths(t *Trace) {
	for i := range t.nodes {
		d := int32(0)
		for p := t.nodes[i].parent; p >= 0; p = t.nodes[p].parent {
			d++
		}
		t.nodes[i].depth = d
	}
}

// attachLooseLogs gives a log without a span id the deepest real span of
// its own service that was open when it was written.
func attachLooseLogs(t *Trace) {
	for i := range t.ents {
		e := &t.ents[i]
		r := t.rec(int32(i))
		if r.Type != schema.TypeLog || r.SpanID != "" {
			continue
		}
		best := int32(-1)
		for j := range t.nodes {
			n := &t.nodes[j]
			if n.ent < 0 || n.svc != e.svc || r.Time.Before(n.start) || r.Time.After(n.end) {
				continue
			}
			if best < 0 || n.depth > t.nodes[best].depth {
				best = int32(j)
			}
		}
		e.node = best
	}
}
