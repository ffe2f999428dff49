package correlate

import (
	"cmp"
	"time"

	"github.com/faultline/faultline/schema"
)

// ruleVagueSignal: an error that says only that something failed (a bare
// status in an access line, "Service Unavailable") takes the kind of the
// failure its own service signalled just before, in the same span: the
// WARN line "claim refused: breaker open for namespace X" followed by the
// access line "POST /v1/jobs/claim 503" is one refusal, told twice.
//
// Condition: the error's class is vague (unknown, transient) and names no
// callee; an earlier failure signal (a WARN line or a span's status) of
// the same service, in the same span (or, for lines outside spans, at
// most signalLead before it), has a class that is not vague. The error
// takes that class and the callee the signal names. A line below WARN
// counts when it tells a refusal (an open breaker, a full bulkhead):
// services log their breaker's refusals as the expected answer they are.
// Constants: signalLead.
// Scenario: testdata/vague_signal.txtar.
const ruleVagueSignal = "vague_signal"

// signalLead is how long before a vague error outside any span its
// service's signal may come and still be the same failure.
const signalLead = 100 * time.Millisecond

// classifyVagueBySignal gives vague errors the class of their service's
// signal just before them.
func classifyVagueBySignal(t *Trace) {
	for i := range t.ents {
		e := &t.ents[i]
		if e.failure != failError || !e.class.Vague() || e.fail < 0 || t.fails[e.fail].target != "" {
			continue
		}
		at := t.eventAt(int32(i)) // a span fails at its end
		best := -1
		var refusal schema.Kind // of an info line chosen as best
		for j := range t.ents {
			s := &t.ents[j]
			if j == i || s.svc != e.svc || s.failure == failError {
				continue
			}
			st := t.eventAt(int32(j))
			if st.After(at) || best >= 0 && !st.After(t.eventAt(int32(best))) {
				continue
			}
			if e.node >= 0 || s.node >= 0 {
				if s.node != e.node {
					continue
				}
			} else if at.Sub(st) > signalLead {
				continue
			}
			k := s.class
			if s.failure == failNone {
				// A refusal the service tells at info level, as the
				// expected answer of its breaker or bulkhead.
				k = refusalAtInfo(t.rec(int32(j)))
			}
			if k != "" && !k.Vague() {
				best = j
				refusal = ""
				if s.failure == failNone {
					refusal = k
				}
			}
		}
		if best < 0 {
			continue
		}
		s := &t.ents[best]
		e.class = cmp.Or(refusal, s.class)
		t.fails[e.fail].toldBy = int32(best) + 1
		if s.fail >= 0 && t.fails[s.fail].target != "" {
			t.fails[e.fail].target, t.fails[e.fail].via = t.fails[s.fail].target, t.fails[s.fail].via
		}
	}
}

// refusalAtInfo is the fast-failure kind of a log line below WARN that
// tells a refusal ("claim refused: breaker open namespace=X"), "" for any
// other.
func refusalAtInfo(r *schema.Record) schema.Kind {
	if r.Type != schema.TypeLog || r.IsError() || r.Severity >= schema.SeverityWarn {
		return ""
	}
	if k := refusalKind(r); isFastFailure(k) {
		return k
	}
	return ""
}
