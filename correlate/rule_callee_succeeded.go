package correlate

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/faultline/faultline/schema"
)

// ruleCalleeSucceeded: a callee that answered its call with a success did
// not fail its caller, whatever it logged while answering. A policy
// service that logs "price feed snapshot is 95s old, serving cached
// prices" and answers 201 handled its trouble; when the caller then fails
// on its own open breaker to another dependency, the span tree must not
// name the policy service as the callee its failure points at (and a walk
// that starts at the caller's later failure must not end there).
//
// Condition: in the span tree below a failure's span (calleeNode), a
// descendant span of another service whose record is not an error and
// states a success (an HTTP status below 400, gRPC code 0), called by a
// span of the caller that did not fail either: its errors and failure
// signals below do not make it the failing callee.
// Scenario: testdata/callee_succeeded.txtar.
const ruleCalleeSucceeded = "callee_succeeded"

// answeredWell reports whether node c, a callee's span, answered its call
// with a success its caller took as one.
func answeredWell(t *Trace, c int32) bool {
	if t.opts.ruleOff(ruleCalleeSucceeded) {
		return false
	}
	cn := &t.nodes[c]
	if cn.ent < 0 {
		return false
	}
	r := t.rec(cn.ent)
	if r.Type != schema.TypeSpan || r.Status == schema.StatusError {
		return false
	}
	ok := false
	if s := r.Attrs[schema.AttrHTTPStatus]; s != "" {
		code, err := strconv.Atoi(s)
		ok = err == nil && code >= 100 && code < 400
	} else if s := r.Attrs[schema.AttrRPCGRPCStatus]; s != "" {
		ok = s == "0"
	}
	if !ok {
		return false
	}
	if p := cn.parent; p >= 0 && t.nodes[p].svc != cn.svc && t.nodes[p].failed {
		return false // its caller's span around the call failed with it
	}
	return true
}

// answeredWhy says which services the span tree passed over because they
// answered with a success (other than the suspect).
func answeredWhy(t *Trace, suspect string, why *[]string) {
	var names []string
	for _, svc := range t.answered {
		if n := t.svcs[svc].name; n != "" && n != suspect {
			names = append(names, n)
		}
	}
	if len(names) > 0 {
		*why = append(*why, fmt.Sprintf("%s logged errors but answered its calls with a success: not why they failed%s",
			strings.Join(names, ", "), ruleTag(ruleCalleeSucceeded)))
	}
}
