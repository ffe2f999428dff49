package correlate

// ruleCallBelow: a service's bare failure status (its server span's "Bad
// Gateway", an access line's 502) whose callee the walk finds in a failed
// call it made below, in the same request, is told better by that call's
// own failure: "refund-gateway returned 422: charge already refunded" is a
// rejected request, not a transient failure of the gateway. The walk goes
// on from the call's failure, with its kind.
//
// Condition: the failure's class is vague (unknown, transient) and it
// names no callee itself (by its text or attributes); a failing
// span of the same service below its span names the same callee, with a
// class that is not vague.
// Scenario: testdata/call_below.txtar.
const ruleCallBelow = "call_below"

// failedCallBelow is the failing span of cur's service below cur's span
// that names callee tgt with a class that is not vague; -1 when none.
func failedCallBelow(t *Trace, cur int32, tgt string) int32 {
	n := t.ents[cur].node
	if n < 0 || tgt == "" {
		return -1
	}
	own := t.ents[cur].svc
	var walk func(int32) int32
	walk = func(p int32) int32 {
		for c := t.nodes[p].first; c >= 0; c = t.nodes[c].next {
			cn := &t.nodes[c]
			if cn.svc != own {
				continue
			}
			if e := cn.ent; e >= 0 && e != cur && cn.failed && t.ents[e].fail >= 0 && !t.ents[e].class.Vague() &&
				t.ents[e].class != "" {
				if h, _ := t.hint(e); h == tgt {
					return e
				}
			}
			if e := walk(c); e >= 0 {
				return e
			}
		}
		return -1
	}
	return walk(n)
}
