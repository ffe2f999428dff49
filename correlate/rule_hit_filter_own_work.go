package correlate

// ruleHitOwnWork leaves out warnings about a service's own work.
//
// Condition: the record is not an error, its kind does not point at a
// callee (see Kind.PointsElsewhere) and it names none: a slow query, a GC
// pause. A warning counts when it is about a call (a retry, a timeout).
//
// Constants: none.
// Test: TestRules/hit_filter_own_work (storeOwnWork).
const ruleHitOwnWork = "hit_filter_own_work"

func skipOwnWork(c *hitCandidate, _ *causeScan) bool {
	return !c.rec.IsError() && !c.kind.PointsElsewhere() && c.hint == ""
}
