package correlate

import (
	"time"
)

// Upper bounds on a callee's clock in a trace without spans. The lower
// bound of correctLogSkew (a callee cannot log before it is called) moves
// a callee whose clock runs behind; these move one whose clock runs ahead,
// whose errors would otherwise follow the caller's lines that report them.
// Each shift moves all of the callee's records by one amount, at most
// MaxSkew, and is a warning that names its rule.

// ruleSkewQuoted: an error that quotes another service's error message (a
// wrapped error chain, see quotes) came after it: the quoted error is put
// a tolerance before the quote. Scenario: testdata/skew_quoted.txtar.
const ruleSkewQuoted = "skew_quoted"

// ruleSkewAnswered: a caller's error that tells the status its callee
// answered ("orders returned 503", "request to orders failed: 500") came
// after the callee's first error; a timeout, which may be logged before
// the callee fails, tells nothing. Scenario: testdata/skew_answered.txtar.
const ruleSkewAnswered = "skew_answered"

// answerSlack is how much later than the caller's report of it a callee
// may log its error on a right clock: a handler often logs after it has
// answered (an exception handler, an access log, a buffered logger). Hosts
// that disagree disagree by more (hundreds of milliseconds to seconds).
const answerSlack = 100 * time.Millisecond

// boundByQuotes applies ruleSkewQuoted, quoters in time order, so that a
// chain moves its inner links after the outer ones.
func boundByQuotes(t *Trace) {
	if len(t.nodes) > 0 || len(t.svcs) < 2 {
		return
	}
	shifted := make([]bool, len(t.svcs))
	for _, q := range quotes(t) {
		callee := t.ents[q.quoted].svc
		if shifted[callee] {
			continue
		}
		if shiftBefore(t, callee, q.quoted, q.quoter, ruleSkewQuoted, "the error that quotes it") {
			shifted[callee] = true
		}
	}
}

// boundByAnswers applies ruleSkewAnswered.
func boundByAnswers(t *Trace) {
	if len(t.nodes) > 0 || len(t.svcs) < 2 {
		return
	}
	for i := range t.ents {
		r := t.rec(int32(i))
		if !r.IsError() || !mayNameCallee(r.Body) {
			continue
		}
		var buf [textCap]byte
		var l lowered
		l.init(buf[:], r)
		code := httpStatus(r)
		if code == 0 {
			code = l.statusAfter("status", "returned ", "answered ", "responded ", "response ", "http ", "code ", "got ")
		}
		if code < 400 || code == 408 || code == 504 || isTimeoutText(&l) {
			continue
		}
		callee := calleeOfCall(t, int32(i))
		if callee < 0 {
			continue
		}
		if first := firstErrorOf(t, callee); first >= 0 {
			shiftBefore(t, callee, first, int32(i), ruleSkewAnswered, "its caller's error telling its answer")
		}
	}
}

// shiftBefore moves every record of service svc back so that its entry e
// comes a tolerance before entry bound, when it is later by more than
// answerSlack and the shift is within MaxSkew; it reports whether it moved
// them.
func shiftBefore(t *Trace, svc, e, bound int32, rule, what string) bool {
	late := t.at(e).Sub(t.at(bound))
	if late <= answerSlack {
		return false
	}
	lag := late + t.opts.tolerance()
	name := t.svcs[svc].name
	if lag > t.opts.maxSkew() {
		t.Warnf("clock skew: an error of %s is %s after %s, more than the %s maximum; left as is%s",
			name, lag.Round(time.Microsecond), what, t.opts.maxSkew(), ruleTag(rule))
		return false
	}
	for j := range t.ents {
		if t.ents[j].svc == svc {
			t.ents[j].adj -= lag
		}
	}
	t.Warnf("clock skew: shifted the logs of %s by %s to put its error before %s in %s (no spans)%s",
		name, (-lag).Round(time.Microsecond), what, t.svcs[t.ents[bound].svc].name, ruleTag(rule))
	return true
}

// firstErrorOf is a service's earliest error entry by corrected time, -1
// when it logged none.
func firstErrorOf(t *Trace, svc int32) int32 {
	best := int32(-1)
	for i := range t.ents {
		if t.ents[i].svc == svc && t.rec(int32(i)).IsError() && (best < 0 || t.at(int32(i)).Before(t.at(best))) {
			best = int32(i)
		}
	}
	return best
}
