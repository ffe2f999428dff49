package correlate

import (
	"fmt"
	"strings"
	"time"

	"github.com/faultline/faultline/schema"
)

// ruleTimeoutWait: a caller that timed out on a callee that logged no
// error waited on what the callee itself was waiting on. When the callee's
// span shows that, for most of the time the caller gave it, it was in a
// call of its own (to a dependency that leaves no spans, named by the
// call's attributes, or to a service whose span is below it), the timeout
// is that dependency's: a job runner that gives a package cache one second
// while the cache waits on a slow source-forge API times out on the forge,
// not on the cache. The walk repeats from the dependency's own span, if it
// has one.
//
// Condition: the failure is a timeout; its callee (the span-tree callee of
// calleeNode) logged no error that failed its answer (its signals and
// handled errors may tell the same, less surely); a call under the callee's
// span began before the caller's deadline (the end of the caller's call,
// else the failure's time), was still running at it or ended within
// waitSlack before it, and covers at least half of the time from the
// callee's start to the deadline.
// Constants: waitShare, waitSlack.
// Scenario: testdata/timeout_wait.txtar.
const ruleTimeoutWait = "timeout_wait"

const (
	// waitShare is the least share of the caller's wait that one call of
	// the callee's must cover to be what the caller waited on.
	waitShare = 0.5
	// waitSlack is how long before the deadline the call may have ended
	// and still be what the callee was doing when its caller gave up (the
	// callee's own work after it: parsing, logging).
	waitSlack = 50 * time.Millisecond
)

// waitedOn returns the service the caller of failure cur, a timeout on the
// silent callee tgt, was waiting on through tgt, and how it was found;
// "" when tgt's span shows no call that held the wait.
func waitedOn(t *Trace, cur int32, tgt string) (string, string) {
	if t.opts.ruleOff(ruleTimeoutWait) || tgt == "" {
		return "", ""
	}
	k := t.ents[cur].class
	if k != schema.KindTimeout && k != schema.KindDependencyTimeout {
		return "", ""
	}
	n := calleeNode(t, cur)
	if n < 0 || t.svcs[t.nodes[n].svc].name != tgt {
		return "", ""
	}
	deadline := t.eventAt(cur).UnixNano()
	if p := t.nodes[n].parent; p >= 0 && t.nodes[p].svc == t.ents[cur].svc {
		deadline = min(deadline, t.nodes[p].end+int64(t.nodes[p].adj))
	}
	svc, via := "", ""
	for hops := 0; n >= 0 && hops < 8; hops++ {
		next, name, share := heldWait(t, n, deadline)
		if name == "" {
			break
		}
		via = fmt.Sprintf("%s was in a call to %s for %.0f%% of the time its caller waited%s",
			t.svcs[t.nodes[n].svc].name, name, 100*share, ruleTag(ruleTimeoutWait))
		svc, n = name, next
		if n >= 0 && (t.nodes[n].subFailed || t.nodes[n].signal) {
			break // the dependency's own span tells the rest
		}
	}
	return svc, via
}

// heldWait finds, under the span of node n, the call that held most of the
// time from n's start to deadline: a span of another service (returned as
// its node) or a call of n's service that names its callee (node -1).
// The callee's name is "" when no call covered waitShare of it.
func heldWait(t *Trace, n int32, deadline int64) (int32, string, float64) {
	start := t.nodes[n].start + int64(t.nodes[n].adj)
	wait := deadline - start
	if wait <= 0 {
		return -1, "", 0
	}
	own := t.nodes[n].svc
	best, bestName, bestCover := int32(-1), "", int64(0)
	consider := func(c int32, name string) {
		cn := &t.nodes[c]
		cs, ce := cn.start+int64(cn.adj), cn.end+int64(cn.adj)
		if cs > deadline || ce < deadline-int64(waitSlack) {
			return
		}
		if cover := min(ce, deadline) - max(cs, start); cover > bestCover {
			best, bestName, bestCover = c, name, cover
		}
	}
	var walk func(int32)
	walk = func(p int32) {
		for c := t.nodes[p].first; c >= 0; c = t.nodes[c].next {
			cn := &t.nodes[c]
			if cn.svc != own {
				consider(c, t.svcs[cn.svc].name)
				continue
			}
			if cn.ent >= 0 && cn.first < 0 {
				if tgt := leafCallee(t, t.rec(cn.ent)); tgt != "" && tgt != t.svcs[own].name {
					consider(c, resolveHint(t, tgt))
				}
			}
			walk(c)
		}
	}
	walk(n)
	if bestName == "" || float64(bestCover) < waitShare*float64(wait) {
		return -1, "", 0
	}
	if t.nodes[best].svc == own {
		best = -1 // a call to a dependency without spans of its own
	}
	return best, bestName, float64(bestCover) / float64(wait)
}

// leafCallee names the callee of a call span with no span below it: the
// span tree does not name it, so every attribute that names a callee does
// (ruleCalleeNamed's, not only the conventions'), then a URL's host.
func leafCallee(t *Trace, r *schema.Record) string { return calleeBy(r, t.opts.naming()) }

// calleeBy names the callee of a call span with no span below it by the
// attributes of naming n, then a URL's host; lowercase.
func calleeBy(r *schema.Record, n calleeNaming) string {
	for _, k := range n.keys {
		if v := dropPort(strings.ToLower(r.Attrs[k])); v != "" {
			return v
		}
	}
	return hintBy(r, n)
}
