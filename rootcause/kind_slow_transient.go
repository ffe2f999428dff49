package rootcause

import "github.com/faultline/faultline/schema"

// ruleSlowTransient: a dependency whose callers tell its failures as
// transient ("Network connection lost", a reset, a bare 503) but whose
// calls also waited far longer than in the baseline was not blipping: it
// hung, and the connections dropped at the end of the wait. That is a slow
// dependency (its callers should time out and break the circuit), not a
// blip to retry through: retries only add to the wait.
//
// Condition: the kind the failing traces' votes give is transient (so no
// signal named it), and call timing found the calls into the service
// slowed (its timing kind is latency: the wait grew inside it, not on
// the wire). No constant: call_timing's test decides "slowed".
// Scenario: testdata/slow_transient.txtar.
const ruleSlowTransient = "slow_transient"

// slowTransient returns dependency-timeout and the evidence when the rule
// holds for s, whose kind so far is k; else k.
func slowTransient(k schema.Kind, s *scored) (schema.Kind, string) {
	if k != schema.KindTransient || s.timingKind != schema.KindLatency {
		return k, ""
	}
	return schema.KindDependencyTimeout,
		"its callers' calls to it failed as transient after waiting far longer than in the baseline: it hung, then dropped them [" + ruleSlowTransient + "]"
}
