package correlate

import (
	"strings"
)

// ruleQuotedError: an error that quotes another service's error message
// ("POST http://10.0.3.7:8080/v1/charge returned 503: <payments' own
// message>") names that service as its callee, when nothing else names a
// service of the trace (no callee named, or an address, or a name no
// record of the trace carries). The walk then reaches the quoted error
// even when it is of a kind that does not propagate (deterministic), and
// the suspect's reason says "quoted error [quoted_error]".
//
// Condition: both are error logs of two services, the quoted one not a
// caller of the quoter's span (a caller's error is no answer its callee
// quotes: services of one library fail in the same words); the quoter's text is
// longer than the quoted message and contains it whole (or its part after
// the first ": ", the quoted service's own prefix dropped), at least
// minQuote bytes. Among several quoted messages (a chain "checkout returned
// 500: payments returned 503: ..."), the longest is the direct callee's.
// Scenario: testdata/quoted_error.txtar.
const ruleQuotedError = "quoted_error"

// minQuote is the shortest message a quote is recognised by: a bare
// status ("internal error") is no quote of anyone's.
const minQuote = 16

// maxQuoteErrors caps the error lines compared pairwise in one trace.
const maxQuoteErrors = 64

// viaQuote is how a quoted callee was found, as reasons quote it.
const viaQuote = "quoted error" + " [" + ruleQuotedError + "]"

// quoting is one error line (quoter) containing another service's error
// message (quoted); entries.
type quoting struct{ quoter, quoted int32 }

// quotes lists, for each error log that quotes other services' error
// messages, the one whose quoted message is the longest. Built on first
// use (see Trace.quoted); the skew rules read it before classification,
// so it relies on severity, not on classes.
func quotes(t *Trace) []quoting {
	if t.quotedDone {
		return t.quoted
	}
	t.quotedDone = true
	var small [8]int32
	errs := small[:0]
	for i := range t.ents {
		if r := t.rec(int32(i)); r.IsError() && len(messageOf(r)) >= minQuote {
			errs = append(errs, int32(i))
			if len(errs) == maxQuoteErrors {
				break
			}
		}
	}
	var out []quoting
	for _, e := range errs {
		body := messageOf(t.rec(e))
		best, bestLen := int32(-1), 0
		for _, q := range errs {
			if t.ents[q].svc == t.ents[e].svc || callerOf(t, q, e) {
				// A caller's error is no answer its callee quotes: two
				// services of one library fail in the same words.
				continue
			}
			if n := quotedLen(body, messageOf(t.rec(q))); n > bestLen {
				best, bestLen = q, n
			}
		}
		if best >= 0 {
			out = append(out, quoting{quoter: e, quoted: best})
		}
	}
	t.quoted = out
	return out
}

// quotedLen is how much of msg the text body quotes: msg whole, when
// body is longer; else msg's part after its first ": " (a prefix of the
// quoted service's own: "order 8812: ..."), at least minQuote bytes, when
// body gives a status before it ("... returned 503: <part>"): two lines
// that merely end alike ("...: context deadline exceeded") quote no one.
// 0 when body quotes neither.
func quotedLen(body, msg string) int {
	if len(body) > len(msg) && strings.Contains(body, msg) {
		return len(msg)
	}
	i := strings.Index(msg, ": ")
	if i < 0 {
		return 0
	}
	part := msg[i+2:]
	j := strings.Index(body, part)
	if len(part) < minQuote || j <= 0 || !hasStatus(body[:j]) {
		return 0
	}
	return len(part)
}

// hasStatus reports whether s gives a 4xx or 5xx status: a run of three
// digits 400..599 that is no part of a longer number.
func hasStatus(s string) bool {
	for i := 0; i+3 <= len(s); i++ {
		if (s[i] == '4' || s[i] == '5') && isDigit(s[i+1]) && isDigit(s[i+2]) &&
			(i == 0 || !isDigit(s[i-1]) && s[i-1] != '.') && (i+3 == len(s) || !isDigit(s[i+3]) && s[i+3] != '.') {
			return true
		}
	}
	return false
}

// nameQuotedCallee sets the callee of each quoting error that names no
// service of the trace to the service it quotes.
func nameQuotedCallee(t *Trace) {
	for _, q := range quotes(t) {
		f := t.ents[q.quoter].fail
		if f < 0 {
			continue
		}
		fi := &t.fails[f]
		if fi.target != "" && t.findService(fi.target) >= 0 {
			continue
		}
		fi.target, fi.via, fi.host = t.svcs[t.ents[q.quoted].svc].name, viaQuote, false
	}
}
