package correlate

import (
	"strings"

	"github.com/faultline/faultline/schema"
)

// ruleCalleeStatus: an error line whose own response status (its
// http.response.status_code attribute) is a 5xx while its text tells the
// status its callee answered ("refund-gateway returned 422: charge already
// refunded", "request failed with status code 422") takes the kind of the
// callee's answer. The 5xx is how the
// service passed the failure on to its caller (a 502 says only that the
// upstream answered badly); the callee's 4xx says what failed: it rejected
// the request. Without it, a rejected input reads as a transient failure,
// and a new version whose answers make its callers send such requests is
// not found (deploy_effect follows only failures a request can cause).
//
// Condition: a failure whose class came from a 5xx status attribute; its
// text states, after "returned", "answered", "responded" or "status
// code", an HTTP status of another class.
// Scenario: testdata/callee_status.txtar.
const ruleCalleeStatus = "callee_status"

// classifyByCalleeStatus gives such failures the class of their callee's
// answer.
func classifyByCalleeStatus(t *Trace) {
	var l lowered
	var buf []byte
	for i := range t.ents {
		e := &t.ents[i]
		if e.failure == failNone || e.class != schema.KindTransient {
			continue
		}
		r := t.rec(int32(i))
		if code := httpStatus(r); code < 500 || code > 599 || !mayStateAnswer(r.Body) {
			continue
		}
		l = lowered{}
		l.init(buf, r)
		code := l.statusAfter("returned ", "answered ", "responded ", "status code ")
		if k := httpKind(code); k != "" && k != schema.KindTransient && e.fail >= 0 {
			e.class = k
			t.fails[e.fail].calleeStatus = code
		}
	}
}

// mayStateAnswer is a cheap test, before the text is lowered, that body
// may state its callee's answer.
func mayStateAnswer(body string) bool {
	for _, w := range [...]string{"eturned ", "nswered ", "esponded ", "tatus code "} {
		if strings.Contains(body, w) {
			return true
		}
	}
	return false
}
