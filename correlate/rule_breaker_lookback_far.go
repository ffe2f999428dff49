package correlate

import (
	"context"

	"github.com/faultline/faultline/schema"
)

// ruleLookbackFar looks further back for what tripped a breaker that has
// stayed open.
//
// Condition: the breaker names nothing (not lead.named) and breaker_weigh
// settled no suspect from the breakerLookback (it shows only refusals).
// The dependency's own failures from breakerLookbackFar (ten minutes) to
// breakerLookback before, at most breakerScanAll, less what hitFilters
// leave out and the traces already read, are weighed the same way: the
// breaker has re-opened on failed probes since older failures tripped it.
//
// Constants: breakerLookbackFar, breakerLookback, breakerScanAll.
// Test: TestRules/breaker_lookback_far (TestAnalyzeBlindBreakerLooksFurtherBack).
const ruleLookbackFar = "breaker_lookback_far"

func lookbackFar(ctx context.Context, st WindowStore, s *tripSearch) error {
	if s.trip.suspect != "" || s.lead.named {
		return nil
	}
	q := schema.WindowQuery{From: s.lead.at.Add(-breakerLookbackFar), To: s.lead.at.Add(-breakerLookback),
		Service: s.lead.dep, ErrorsOnly: true, Limit: breakerScanAll}
	hits, err := causeHits(ctx, st, s, q, ruleLookbackFar)
	if err != nil {
		return err
	}
	s.trip = weigh(ctx, st, s, latestHits(hits))
	return s.trip.err
}
