package correlate

import (
	"net/http"
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
// code", an HTTP status of another class, or gives one with its reason
// phrase before " from " and the request (a Spring client's "422
// Unprocessable Entity from POST https://...").
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
		if code == 0 {
			code = statusFrom(l.s)
		}
		if k := httpKind(code); k != "" && k != schema.KindTransient && e.fail >= 0 {
			e.class = k
			t.fails[e.fail].calleeStatus = code
		}
	}
}

// mayStateAnswer is a cheap test, before the text is lowered, that body
// may state its callee's answer.
func mayStateAnswer(body string) bool {
	for _, w := range [...]string{"eturned ", "nswered ", "esponded ", "tatus code ", " from "} {
		if strings.Contains(body, w) {
			return true
		}
	}
	return false
}

// statusFrom reads the status of "422 unprocessable entity from post
// https://..." in lowered text: three digits, the status's reason phrase
// as net/http spells it, then " from ". 0 when the text has none.
func statusFrom(s string) int {
	for from := 0; ; {
		i := strings.Index(s[from:], " from ")
		if i < 0 {
			return 0
		}
		i += from
		from = i + 1
		// The reason phrase has a few words: try each three-digit run
		// that starts at most 40 bytes before " from ".
		for j := max(0, i-40); j+3 < i; j++ {
			if !isDigit(s[j]) || !isDigit(s[j+1]) || !isDigit(s[j+2]) || j > 0 && isDigit(s[j-1]) {
				continue
			}
			code := int(s[j]-'0')*100 + int(s[j+1]-'0')*10 + int(s[j+2]-'0')
			if reason := http.StatusText(code); reason != "" && s[j+3:i] == " "+strings.ToLower(reason) {
				return code
			}
		}
	}
}
