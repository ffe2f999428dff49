package correlate

import (
	"strings"
	"time"
)

// correctLogSkew is clock-skew correction for traces without spans: a log
// line of service A that names service B as the callee of a call it is
// making ("calling http://b:8080/...", "request to b") sets a lower bound
// on B's clock. B cannot have handled the call before A made it, so when
// B's first record is earlier than that line by more than the tolerance,
// all of B's records are shifted to start at it (within MaxSkew, with a
// warning). Failure lines are not used: a timeout is logged long after its
// call began.
func correctLogSkew(t *Trace) {
	if len(t.svcs) < 2 {
		return
	}
	shifted := make([]bool, len(t.svcs))
	for i := range t.ents {
		e := &t.ents[i]
		r := t.rec(int32(i))
		if r.IsError() || !mayNameCallee(r.Body) {
			continue
		}
		callee := calleeOfCall(t, int32(i))
		if callee < 0 || shifted[callee] {
			continue
		}
		callAt := r.Time.Add(e.adj)
		first := firstOf(t, callee)
		lag := callAt.Sub(first)
		if lag <= t.opts.tolerance() {
			continue
		}
		name := t.svcs[callee].name
		if lag > t.opts.maxSkew() {
			t.Warnf("clock skew: the logs of %s start %s before %s calls it, more than the %s maximum; left as is",
				name, lag.Round(time.Microsecond), t.svcs[e.svc].name, t.opts.maxSkew())
			continue
		}
		shifted[callee] = true
		for j := range t.ents {
			if t.ents[j].svc == callee {
				t.ents[j].adj += lag
			}
		}
		t.Warnf("clock skew: shifted the logs of %s by %s to follow the call from %s (no spans)",
			name, lag.Round(time.Microsecond), t.svcs[e.svc].name)
	}
}

// mayNameCallee is a cheap test before reading a line for a callee.
func mayNameCallee(body string) bool {
	return strings.Contains(body, "://") || strings.Contains(body, "alling ") ||
		strings.Contains(body, "all to ") || strings.Contains(body, "equest to ") ||
		strings.Contains(body, "eturned ") || strings.Contains(body, "esponded ") || strings.Contains(body, "nswered ")
}

// calleeOfCall is the service of the trace a line names as its callee, -1
// when none (or its own).
func calleeOfCall(t *Trace, i int32) int32 {
	var buf [textCap]byte
	var l lowered
	l.init(buf[:], t.rec(i))
	h := hintFromText(&l)
	if h == "" && !t.opts.ruleOff(ruleCalleeAnswered) {
		h = answeredBy(&l)
	}
	s := t.findService(resolveHint(t, h))
	if s == t.ents[i].svc {
		return -1
	}
	return s
}

// firstOf is the corrected time of a service's first record.
func firstOf(t *Trace, svc int32) time.Time {
	var first time.Time
	for i := range t.ents {
		if t.ents[i].svc != svc {
			continue
		}
		if at := t.at(int32(i)); first.IsZero() || at.Before(first) {
			first = at
		}
	}
	return first
}
