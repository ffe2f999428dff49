package correlate

import (
	"slices"
	"strings"
	"time"

	"github.com/faultline/faultline/schema"
)

// classifyRecords gives every error its class and every WARN line (or
// non-error span with a failing status) that signals a failure its kind,
// with the callee it names. Info and debug lines are skipped unread.
func classifyRecords(t *Trace) {
	for i := range t.ents {
		e := &t.ents[i]
		r := t.rec(int32(i))
		isErr := r.IsError()
		if !isErr && !maySignal(r) {
			continue
		}
		k, hint := classifyNaming(r, true, t.opts.naming())
		if k == "" {
			continue
		}
		e.class = k
		e.failure = failSignal
		if isErr {
			e.failure = failError
		}
		attrHint := hintBy(r, t.opts.naming())
		if r.Type == schema.TypeSpan && e.node >= 0 && t.nodes[e.node].first < 0 {
			// A call span with no span below it: the span tree does not
			// name its callee, and its own attributes do, before its text
			// ("from ec2.eu-west-1.amazonaws.com"; ruleCalleeNamed).
			if h := leafCallee(t, r); h != "" {
				hint, attrHint = h, h
			}
		}
		f := failInfo{target: resolveHint(t, hint)}
		if h := attrHint; h != "" && h == hint {
			f.via = viaAttribute
			f.named = h != hintBy(r, byConvention)
		} else if hint != "" {
			f.via = viaText
		}
		f.host = strings.IndexByte(hint, '.') > 0 && !isIPv4(hint) && r.Attrs[schema.AttrPeerService] == ""
		e.fail = int32(len(t.fails))
		t.fails = append(t.fails, f)
		markNode(t, e)
	}
	unifyTargets(t)
	applyTraceRules(t, classifyRules())
	markFailedSubtrees(t)
}

// unifyTargets gives one name to a dependency outside the trace that
// failures name differently: a breaker's short name in a message
// ("shipping") takes the peer.service of a call to it ("shipping-service").
// A label too short to match on its own ("geo") takes the one name whose
// letters it begins among the failed calls of the same service.
func unifyTargets(t *Trace) {
	caller := make([]string, len(t.fails)) // the service that logged each failure
	for i := range t.ents {
		if f := t.ents[i].fail; f >= 0 {
			caller[f] = t.rec(int32(i)).Service
		}
	}
	// A name made of a host ("geo-vendor" of api.geo-vendor.example.com)
	// takes the fuller name the same caller's messages give it
	// ("failed to call geo-vendor-api"): the one its callers know it by.
	for j := range t.fails {
		g := &t.fails[j]
		if !g.host || t.findService(g.target) >= 0 {
			continue
		}
		for i := range t.fails {
			f := &t.fails[i]
			if f.via == viaText && caller[i] == caller[j] && len(f.target) > len(g.target) &&
				strings.IndexByte(f.target, '.') < 0 && sameService(g.target, f.target) {
				g.target = f.target
				break
			}
		}
	}
	for i := range t.fails {
		f := &t.fails[i]
		if f.via != viaText || f.target == "" || t.findService(f.target) >= 0 {
			continue
		}
		short, n := "", 0
		for j := range t.fails {
			g := &t.fails[j]
			if g.via != viaAttribute || g.target == f.target {
				continue
			}
			if sameService(g.target, f.target) {
				short, n = g.target, 1
				break
			}
			if caller[j] == caller[i] && Abbreviates(f.target, g.target) && g.target != short {
				short = g.target
				n++
			}
		}
		if n == 1 {
			f.target = short
		}
	}
}

// markFailedSubtrees sets subFailed on every node with an error in its
// subtree, children before parents.
func markFailedSubtrees(t *Trace) {
	if len(t.nodes) == 0 {
		return
	}
	byDepth := nodesByDepth(t)
	for k := len(byDepth) - 1; k >= 0; k-- {
		n := &t.nodes[byDepth[k]]
		n.subFailed = n.subFailed || n.failed
		if n.subFailed && n.parent >= 0 {
			t.nodes[n.parent].subFailed = true
		}
	}
}

// maySignal reports whether a record that is not an error is worth
// classifying: WARN (and unspecified-severity) logs, spans with a status
// code attribute.
func maySignal(r *schema.Record) bool {
	if r.Type == schema.TypeSpan {
		return r.Attrs[schema.AttrHTTPStatus] != "" || r.Attrs["http.status_code"] != "" ||
			r.Attrs[schema.AttrRPCGRPCStatus] != ""
	}
	return r.Severity == schema.SeverityUnspecified || r.Severity >= schema.SeverityWarn
}

// markNode flags the node of a failure. An error log also flags the
// service-local root of its node (see localRoot), so that error spans of
// the same service around it are known to be told better by the log.
func markNode(t *Trace, e *entry) {
	if e.node < 0 {
		return
	}
	n := &t.nodes[e.node]
	if e.failure != failError {
		n.signal = true
		return
	}
	n.failed = true
	if t.recs[e.rec].Type == schema.TypeLog {
		t.nodes[localRoot(t, e.node)].errLog = true
	}
}

// localRoot walks up from n while the parent runs in the same service:
// the span where the service took the request.
func localRoot(t *Trace, n int32) int32 {
	for p := t.nodes[n].parent; p >= 0 && t.nodes[p].svc == t.nodes[n].svc; p = t.nodes[n].parent {
		n = p
	}
	return n
}

// causalOrder sorts the entries by corrected time; at equal times a span
// comes before its logs and a parent before its children.
func causalOrder(t *Trace) {
	t.order = make([]int32, len(t.ents))
	for i := range t.order {
		t.order[i] = int32(i)
		e := &t.ents[i]
		e.ts = t.recs[e.rec].Time.UnixNano() + int64(e.adj)
	}
	slices.SortStableFunc(t.order, func(a, b int32) int {
		ea, eb := &t.ents[a], &t.ents[b]
		if ea.ts != eb.ts {
			return cmpInt64(ea.ts, eb.ts)
		}
		ta, tb := t.recs[ea.rec].Type, t.recs[eb.rec].Type
		if ta != tb {
			return int(tb) - int(ta) // spans (1) first
		}
		return t.depth(a) - t.depth(b)
	})
}

func cmpInt64(a, b int64) int {
	if a < b {
		return -1
	}
	return 1
}

// eventTimes lists the error entries by when they failed. An error span
// of a service that logged an error for the same request is left out: the
// log says it better.
func eventTimes(t *Trace) []int32 {
	var ev []int32
	for _, i := range t.order {
		e := &t.ents[i]
		if e.failure != failError {
			continue
		}
		if t.rec(i).Type == schema.TypeSpan && e.node >= 0 && t.nodes[localRoot(t, e.node)].errLog {
			continue
		}
		ev = append(ev, i)
	}
	slices.SortStableFunc(ev, func(a, b int32) int { return t.eventAt(a).Compare(t.eventAt(b)) })
	return ev
}

// noteFirsts records each service's first error and first failure signal.
func noteFirsts(t *Trace) {
	for _, i := range t.events {
		if s := &t.svcs[t.ents[i].svc]; s.firstError < 0 {
			s.firstError = i
		}
	}
	for _, i := range t.order {
		e := &t.ents[i]
		if e.failure == failSignal {
			if s := &t.svcs[e.svc]; s.firstSignal < 0 {
				s.firstSignal = i
			}
		}
	}
}

// span returns the corrected start and end of the whole trace.
func (t *Trace) span() (time.Time, time.Time) {
	var from, to time.Time
	for i := range t.ents {
		a := t.at(int32(i))
		b := t.rec(int32(i)).End().Add(t.ents[i].adj)
		if from.IsZero() || a.Before(from) {
			from = a
		}
		if b.After(to) {
			to = b
		}
	}
	return from, to
}
