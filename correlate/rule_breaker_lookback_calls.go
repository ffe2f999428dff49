package correlate

import (
	"context"
	"time"

	"github.com/faultline/faultline/schema"
)

// ruleLookbackCalls reads every service's failures of, or calls to, a
// dependency that shows no failure of its own.
//
// Condition: the lookbacks before found nothing (the dependency logs
// nothing, its lines carry no service field, or the breaker's name is
// short for it). The failures of every service that are of the
// dependency or of calls to it count, in the last breakerLookback/4
// (thirty seconds) first, else in the whole breakerLookback: a dependency
// that logs nothing shows only in its callers' calls.
//
// Constants: breakerLookback, breakerScanAll.
// Test: TestRules/breaker_lookback_calls (storeCallsOnly).
const ruleLookbackCalls = "breaker_lookback_calls"

func lookbackCalls(ctx context.Context, st WindowStore, s *tripSearch) error {
	for _, back := range [...]time.Duration{breakerLookback / 4, breakerLookback} {
		if len(s.hits) > 0 {
			return nil
		}
		q := schema.WindowQuery{From: s.lead.at.Add(-back), To: s.lead.at, ErrorsOnly: true, Limit: breakerScanAll}
		hits, err := causeHits(ctx, st, s, q, ruleLookbackCalls)
		s.hits = hits
		if err != nil {
			return err
		}
	}
	return nil
}
