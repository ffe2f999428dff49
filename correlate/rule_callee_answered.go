package correlate

import (
	"strings"

	"github.com/faultline/faultline/schema"
)

// ruleCalleeAnswered: a caller's line that reports what its callee
// answered names the callee by the name before the verb: "orders
// returned 503: ...", "ledger responded 500", "fraud answered with status
// 429". The callee is then the one its callers name, not whatever else
// failed before (see causedBy), and the walk reaches its error even when
// it is of a kind that does not propagate by itself.
//
// Condition: a failure names no callee (no attribute, no marker of
// hintFromText); the word before " returned ", " responded " or
// " answered " is a name (not a stop word, not part of a path or a URL)
// of another service of the trace, and a status 100..599 follows within a
// few words ("with", "status", "code", "http"). A word that names no
// service of the trace ("SMS provider answered 429") names nothing: the
// span's peer may. The same reading names the callee of such a line for
// the lower bound of a callee's clock (calleeOfCall).
// Scenario: testdata/callee_answered.txtar.
const ruleCalleeAnswered = "callee_answered"

// viaAnswer is how an answering callee was found, as reasons quote it.
const viaAnswer = "answer reported" + " [" + ruleCalleeAnswered + "]"

// nameAnsweredCallee names the callee of each failure that names none by
// the service whose answer its line reports.
func nameAnsweredCallee(t *Trace) {
	for i := range t.ents {
		e := &t.ents[i]
		if e.fail < 0 || t.fails[e.fail].target != "" {
			continue
		}
		r := t.rec(int32(i))
		if r.Type != schema.TypeLog || !mayNameCallee(r.Body) {
			continue
		}
		var buf [textCap]byte
		var l lowered
		l.init(buf[:], r)
		name := answeredBy(&l)
		if name == "" {
			continue
		}
		if s := t.findService(resolveHint(t, dashed(r.Body, name))); s >= 0 && s != e.svc {
			t.fails[e.fail].target, t.fails[e.fail].via = t.svcs[s].name, viaAnswer
		}
	}
}

// answeredBy reads the callee's name of "NAME returned|responded|answered
// STATUS" in a lowered text; "" when none.
func answeredBy(l *lowered) string {
	for _, verb := range [...]string{" returned ", " responded ", " answered "} {
		for from := 0; ; {
			i := strings.Index(l.s[from:], verb)
			if i < 0 {
				break
			}
			at := from + i
			from = at + len(verb)
			if threeDigits(statusWords(l.s[from:min(len(l.s), from+24)])) == 0 {
				continue
			}
			j := at
			for j > 0 && (isLetter(l.s[j-1]) || isDigit(l.s[j-1]) || strings.IndexByte(".-_", l.s[j-1]) >= 0) {
				j--
			}
			if j > 0 && strings.IndexByte(" \"'[(:", l.s[j-1]) < 0 {
				continue // a path's or a URL's last part ("GET /cart returned 500")
			}
			if tok := nameToken(l.s[j:at]); tok != "" && tok == strings.TrimRight(l.s[j:at], ".-_") && isLetter(tok[0]) {
				return tok
			}
		}
	}
	return ""
}

// statusWords drops the words that may come between the verb and the
// status ("with status 429", "http 500"), leaving the status first.
func statusWords(s string) string {
	for {
		t := s
		for _, w := range [...]string{"with ", "status ", "code ", "http ", "an ", "a ", ": "} {
			t = strings.TrimPrefix(t, w)
		}
		if t == s {
			break
		}
		s = t
	}
	if len(s) >= 3 && isDigit(s[0]) && isDigit(s[1]) && isDigit(s[2]) && (len(s) == 3 || !isDigit(s[3])) {
		return s[:3]
	}
	return ""
}
