package correlate

import (
	"time"

	"github.com/faultline/faultline/schema"
)

// ruleSpanlessParent: a span whose parent is not in the trace, and that
// began inside a call to a service of the trace that leaves no spans (it
// only logs), was called by that service: the parent is its span, never
// exported. The missing parent becomes a node of that service under the
// call, and the span its child, so that the call graph has the edge
// (the logging service calls the span's service) and the walk can go on
// below the silent hop; the service's lines without a span id attach to
// that node. Without it the span is a root, and what the service without
// spans waited on looks like its own work.
//
// Condition: the span's parent id names no span of the trace; a call
// span of another service, with no span below it, began no later than it
// and ended no earlier than it began, and names (by its attributes,
// leafCallee) a service of the trace with records but no span. The call
// that began last is taken.
// Constants: spanlessBudget.
// Scenario: testdata/spanless_parent.txtar.
const ruleSpanlessParent = "spanless_parent"

// spanlessBudget caps the orphan x span comparisons of one trace: a
// trace of thousands of orphans (an instrumentation that drops parents)
// places the first ones and leaves the rest as roots, in linear time.
const spanlessBudget = 1 << 20

// adoptOrphans links the spans whose parent is missing under the calls
// to services without spans that enclose them; it returns how many it
// placed.
func adoptOrphans(t *Trace, orphans []int32) int {
	if len(orphans) == 0 {
		return 0
	}
	hasSpans := make([]bool, len(t.svcs))
	hasKid := make([]bool, len(t.nodes))
	for i := range t.nodes {
		if n := &t.nodes[i]; n.ent >= 0 {
			hasSpans[n.svc] = true
			if n.parent >= 0 {
				hasKid[n.parent] = true
			}
		}
	}
	placed := 0
	for _, o := range orphans[:min(len(orphans), spanlessBudget/len(t.nodes)+1)] {
		on := t.nodes[o]
		best, bestSvc := int32(-1), int32(-1)
		for j := range t.nodes {
			c := &t.nodes[j]
			if c.ent < 0 || int32(j) == o || c.svc == on.svc || c.start > on.start || c.end < on.start || hasKid[j] {
				continue
			}
			if best >= 0 && c.start <= t.nodes[best].start {
				continue
			}
			callee := t.findService(resolveHint(t, leafCallee(t, t.rec(c.ent))))
			if callee < 0 || hasSpans[callee] || callee == c.svc {
				continue
			}
			best, bestSvc = int32(j), callee
		}
		if best < 0 {
			continue
		}
		pid := t.rec(on.ent).ParentSpanID
		v, ok := t.lookupSpan(pid)
		if !ok {
			c := &t.nodes[best]
			v = newNode(t, -1, &schema.Record{SpanID: pid, Time: time.Unix(0, c.start), Duration: time.Duration(c.end - c.start)}, bestSvc)
			t.nodes[v].parent, t.nodes[v].spanless = best, true
		}
		t.nodes[o].parent = v
		placed++
	}
	return placed
}

// SpanlessCallers names, for each span of one trace's records whose
// parent is not among them, the service without spans whose call encloses
// it, as ruleSpanlessParent places it: the call graph of the incident
// analysis gets the edge from that service to the span's. Spans placed
// nowhere are left out; nil when no parent is missing.
func SpanlessCallers(recs []schema.Record) map[schema.SpanID]string {
	ids := map[schema.SpanID]bool{}
	for i := range recs {
		if recs[i].Type == schema.TypeSpan && recs[i].SpanID != "" {
			ids[recs[i].SpanID] = true
		}
	}
	var orphans []int
	for i := range recs {
		if r := &recs[i]; r.Type == schema.TypeSpan && r.ParentSpanID != "" && !ids[r.ParentSpanID] {
			orphans = append(orphans, i)
		}
	}
	if len(orphans) == 0 {
		return nil
	}
	withSpans, logsOnly, hasKid := map[string]bool{}, map[string]bool{}, map[schema.SpanID]bool{}
	for i := range recs {
		r := &recs[i]
		if r.Type == schema.TypeSpan {
			withSpans[r.Service] = true
			hasKid[r.ParentSpanID] = true
		} else if r.Service != "" {
			logsOnly[r.Service] = true
		}
	}
	out := map[schema.SpanID]string{}
	for _, o := range orphans[:min(len(orphans), spanlessBudget/len(recs)+1)] {
		or := &recs[o]
		var best *schema.Record
		caller := ""
		for i := range recs {
			c := &recs[i]
			if c.Type != schema.TypeSpan || i == o || c.Service == or.Service || hasKid[c.SpanID] ||
				c.Time.After(or.Time) || c.End().Before(or.Time) || best != nil && !c.Time.After(best.Time) {
				continue
			}
			name := ""
			if h := calleeBy(c, byName); h != "" {
				for s := range logsOnly {
					if !withSpans[s] && s != c.Service && (s == h || sameService(s, h)) && (name == "" || s < name) {
						name = s
					}
				}
			}
			if name != "" {
				best, caller = c, name
			}
		}
		if caller != "" {
			out[or.SpanID] = caller
		}
	}
	return out
}
