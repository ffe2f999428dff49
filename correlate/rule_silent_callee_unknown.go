package correlate

import "github.com/faultline/faultline/schema"

// ruleSilentCalleeUnknown: a failure the analysis cannot classify
// ("socket hang up", a dropped connection) that points at a callee which
// never answered the call blames that callee, as a timeout or a transient
// failure does. A process that crashed or was killed (out of memory)
// mid-request answers nothing and logs nothing; its callers see only the
// connection end. Without the rule the walk stops at the caller, which
// only passed the failure on.
//
// Condition: the failure's class is unknown and it points at a callee
// other than its own service by an attribute or its text (not by the span
// tree: a callee whose span is below answered); that callee logged no
// error nor failure signal in the trace (or left no records at all); and a
// failing call span of the same request names it and has no span below it
// (the callee recorded no answer to it). A consumer's error about a
// message names its queue, but made no call the queue left unanswered.
// Scenario: testdata/silent_callee_unknown.txtar.
const ruleSilentCalleeUnknown = "silent_callee_unknown"

// unknownAtSilent reports whether ruleSilentCalleeUnknown settles the
// suspect of entry cur, which points at tgt by via (ti its service, -1
// when it left no records).
func unknownAtSilent(t *Trace, cur int32, tgt, via string, ti int32) bool {
	if t.ents[cur].class != schema.KindUnknown || via == viaSpanTree || t.opts.ruleOff(ruleSilentCalleeUnknown) {
		return false
	}
	if ti >= 0 && (calleeError(t, ti) >= 0 || t.svcs[ti].firstSignal >= 0) {
		return false
	}
	return unansweredCall(t, cur, tgt)
}

// unansweredCall reports whether a failing span of cur's service in cur's
// request (below its service's span that took the request) names callee
// tgt and has no span below it.
func unansweredCall(t *Trace, cur int32, tgt string) bool {
	e := &t.ents[cur]
	if e.node < 0 {
		return false
	}
	var walk func(int32) bool
	walk = func(p int32) bool {
		for c := t.nodes[p].first; c >= 0; c = t.nodes[c].next {
			cn := &t.nodes[c]
			if cn.svc != e.svc {
				continue
			}
			if j := cn.ent; j >= 0 && cn.failed && cn.first < 0 && t.ents[j].fail >= 0 {
				if h, _ := t.hint(j); h == tgt {
					return true
				}
			}
			if walk(c) {
				return true
			}
		}
		return false
	}
	return walk(localRoot(t, e.node))
}
