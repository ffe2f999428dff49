package correlate

import (
	"strings"
	"time"

	"github.com/faultline/faultline/schema"
)

// correctClockSkew shifts spans whose host clock disagrees with their
// parent's. A child span on another host cannot start before its parent
// nor, unless the parent gave up on it, end after it. When it does by more
// than the tolerance, the child's subtree and the logs attached to it are
// shifted: centred inside the parent when the child is shorter, else
// aligned to the parent's start. A correction larger than MaxSkew is not
// applied. Every correction and every refusal becomes a warning.
func correctClockSkew(t *Trace) {
	if t.opts.MaxSkew < 0 {
		return
	}
	if len(t.nodes) == 0 {
		correctLogSkew(t)
		return
	}
	// Nodes deeper in the tree come later once sorted by depth; a
	// counting pass keeps it allocation-light and parents-first.
	for _, i := range nodesByDepth(t) {
		n := &t.nodes[i]
		if n.parent < 0 {
			continue
		}
		p := &t.nodes[n.parent]
		n.adj = p.adj
		if n.ent < 0 || p.ent < 0 || sameHost(t.rec(n.ent), t.rec(p.ent)) {
			continue
		}
		corr := skewOf(t, n, p, isAsync(t.rec(n.ent), t.rec(p.ent)))
		if corr == 0 {
			continue
		}
		r := t.rec(n.ent)
		if abs(corr) > t.opts.maxSkew() {
			t.Warnf("clock skew: span %q of %s is off its parent by %s, more than the %s maximum; left as is",
				r.Name, r.Service, corr.Round(time.Microsecond), t.opts.maxSkew())
			continue
		}
		n.adj += corr
		t.Warnf("clock skew: shifted span %q of %s and its children by %s to fit in its parent in %s",
			r.Name, r.Service, corr.Round(time.Microsecond), t.rec(p.ent).Service)
	}
	for i := range t.ents {
		if n := t.ents[i].node; n >= 0 {
			t.ents[i].adj = t.nodes[n].adj
		}
	}
}

// skewOf is the shift that puts child n inside parent p (both already
// moved by p's correction), or 0 when it fits within the tolerance.
// An async child (a message's consumer) may start and end after its
// parent; it is only moved when it starts before it, to the parent's start.
func skewOf(t *Trace, n, p *node, async bool) time.Duration {
	tol := t.opts.tolerance()
	adj, tl := int64(p.adj), int64(tol)
	cs, ce := n.start+adj, n.end+adj
	ps, pe := p.start+adj, p.end+adj
	cd, pd := ce-cs, pe-ps
	startsEarly := cs < ps-tl
	endsLate := ce > pe+tl
	switch {
	case async && startsEarly:
		return time.Duration(ps - cs)
	case async, !startsEarly && !endsLate:
		return 0
	case !startsEarly && cs <= pe+tl && (cd > pd || t.rec(p.ent).Status == schema.StatusError):
		// A callee may outlive a caller that timed out and moved on.
		return 0
	case cd > pd:
		return time.Duration(ps - cs)
	default:
		return time.Duration(ps + (pd-cd)/2 - cs)
	}
}

// nodesByDepth lists node indices parents first (a counting sort). The
// tree does not change after buildSpanTree, so the list is kept.
func nodesByDepth(t *Trace) []int32 {
	if len(t.byDepth) == len(t.nodes) && len(t.nodes) > 0 {
		return t.byDepth
	}
	maxDepth := int32(0)
	for i := range t.nodes {
		maxDepth = max(maxDepth, t.nodes[i].depth)
	}
	var small [32]int32
	counts := small[:0]
	if int(maxDepth)+2 > len(small) {
		counts = make([]int32, 0, maxDepth+2)
	}
	counts = counts[:maxDepth+2]
	for i := range t.nodes {
		counts[t.nodes[i].depth+1]++
	}
	for d := 1; d < len(counts); d++ {
		counts[d] += counts[d-1]
	}
	out := make([]int32, len(t.nodes))
	for i := range t.nodes {
		d := t.nodes[i].depth
		out[counts[d]] = int32(i)
		counts[d]++
	}
	t.byDepth = out
	return out
}

// sameHost reports whether two records come from one clock: the same host
// or pod when both name one, else the same service.
func sameHost(a, b *schema.Record) bool {
	ha, hb := hostOf(a), hostOf(b)
	if ha != "" && hb != "" {
		return ha == hb
	}
	return a.Service == b.Service
}

func hostOf(r *schema.Record) string {
	if h := r.Attrs[schema.AttrHost]; h != "" {
		return h
	}
	return r.Attrs[schema.AttrPod]
}

func abs(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// isAsync reports whether child is the consumer side of a message sent in
// parent: its span kind says so, it carries messaging attributes, or the
// names follow the messaging convention "<destination> process|receive"
// under "<destination> send|publish".
func isAsync(child, parent *schema.Record) bool {
	for _, k := range [...]string{"span.kind", "otel.span.kind"} {
		switch strings.ToLower(child.Attrs[k]) {
		case "consumer", "span_kind_consumer":
			return true
		}
	}
	if child.Attrs["messaging.operation"] != "" || child.Attrs["messaging.operation.type"] != "" {
		return true
	}
	return hasWordSuffix(child.Name, "process", "receive", "deliver") ||
		hasWordSuffix(parent.Name, "send", "publish")
}

// hasWordSuffix reports whether name ends with " "+one of words.
func hasWordSuffix(name string, words ...string) bool {
	for _, w := range words {
		if len(name) > len(w) && strings.HasSuffix(name, w) && name[len(name)-len(w)-1] == ' ' {
			return true
		}
	}
	return false
}
