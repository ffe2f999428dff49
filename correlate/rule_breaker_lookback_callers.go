package correlate

import (
	"context"
	"slices"

	"github.com/faultline/faultline/schema"
)

// ruleLookbackCallers adds the callers' failed calls to a named dependency.
//
// Condition: the breaker named its dependency (lead.named) and
// breaker_lookback_dependency found failures of it. The calls that
// tripped the breaker failed in callers: the failures of every service in
// the last breakerLookback/4 (thirty seconds) that are calls to the
// dependency count too, and their walks start at the failed call, since
// the dependency's own errors may be about something else. A call that the
// dependency refused fast (its own breaker open) is the refusal's echo and
// does not count, nor does a failure of the dependency itself (already
// read).
//
// Constants: breakerLookback, breakerScanAll.
// Test: TestRules/breaker_lookback_callers (TestAnalyzeBreakerStartsAtTheFailedCalls;
// the refused calls: TestAnalyzeBreakerIgnoresCallsRefusedFast).
const ruleLookbackCallers = "breaker_lookback_callers"

func lookbackCallers(ctx context.Context, st WindowStore, s *tripSearch) error {
	if len(s.hits) == 0 || !s.lead.named {
		return nil
	}
	q := schema.WindowQuery{From: s.lead.at.Add(-breakerLookback / 4), To: s.lead.at,
		ErrorsOnly: true, Limit: breakerScanAll}
	more, err := causeHits(ctx, st, s, q, ruleLookbackCallers)
	more = slices.DeleteFunc(more, func(h traceHit) bool { return h.refused || sameService(h.from, s.lead.dep) })
	s.hits = append(s.hits, more...)
	return err
}
