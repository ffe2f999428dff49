package correlate

import "github.com/faultline/faultline/schema"

// failures lists the errors and failure signals for incident analysis.
func failures(t *Trace) []Failure {
	var out []Failure
	for _, i := range t.order {
		e := &t.ents[i]
		if e.failure == failNone {
			continue
		}
		tgt, via := pointer(t, i)
		if tgt == t.svcs[e.svc].name {
			tgt, via = "", ""
		}
		out = append(out, Failure{
			Service:   t.svcs[e.svc].name,
			Operation: operationOf(t, i),
			Time:      t.eventAt(i),
			Class:     e.class,
			Error:     e.failure == failError,
			Signature: t.signature(i),
			Target:    tgt,
			Via:       via,
			Role:      roleName(e.role),
			Record:    int(e.rec),
		})
	}
	return out
}

// edges counts the caller -> callee service pairs of the span tree.
func edges(t *Trace) []CallEdge {
	var out []CallEdge
	for i := range t.nodes {
		n := &t.nodes[i]
		if n.parent < 0 || n.ent < 0 {
			continue
		}
		p := &t.nodes[n.parent]
		if p.svc == n.svc {
			continue
		}
		from, to := t.svcs[p.svc].name, t.svcs[n.svc].name
		k := edgeIndex(out, from, to)
		if k < 0 {
			out = append(out, CallEdge{From: from, To: to})
			k = len(out) - 1
		}
		out[k].Calls++
		if n.failed {
			out[k].Errors++
		}
	}
	return out
}

func edgeIndex(es []CallEdge, from, to string) int {
	for k := range es {
		if es[k].From == from && es[k].To == to {
			return k
		}
	}
	return -1
}

// spanSummaries lists the span records in causal order.
func spanSummaries(t *Trace) []SpanSummary {
	var out []SpanSummary
	for _, i := range t.order {
		r := t.rec(i)
		if r.Type != schema.TypeSpan {
			continue
		}
		s := SpanSummary{
			Service:   r.Service,
			Operation: r.Name,
			Start:     t.at(i),
			Duration:  r.Duration,
			Error:     r.IsError(),
		}
		if n := t.ents[i].node; n >= 0 {
			s.Error = s.Error || t.nodes[n].failed
			if p := t.nodes[n].parent; p >= 0 {
				s.Parent = t.svcs[t.nodes[p].svc].name
			}
		}
		out = append(out, s)
	}
	return out
}
