package correlate

import (
	"context"

	"github.com/faultline/faultline/schema"
)

// ruleLookbackDependency reads the dependency's own failures.
//
// Condition: always, first. The errors and warnings of service lead.dep in
// the breakerLookback before the fast failure, at most breakerScan of
// them, less what hitFilters leave out, are the candidate tripping
// traces; for a breaker that names nothing, the dependency's own breaker
// lines among them also count what it guards (see hit_filter_fast_failure
// and breaker_guard).
//
// Constants: breakerLookback, breakerScan.
// Test: TestRules/breaker_lookback_dependency (TestAnalyzeBlindBreakerNamedByItsOwnLines).
const ruleLookbackDependency = "breaker_lookback_dependency"

func lookbackDependency(ctx context.Context, st WindowStore, s *tripSearch) error {
	q := schema.WindowQuery{From: s.lead.at.Add(-breakerLookback), To: s.lead.at, Service: s.lead.dep,
		ErrorsOnly: true, Limit: breakerScan}
	hits, err := causeHits(ctx, st, s, q, ruleLookbackDependency)
	s.hits = hits
	return err
}
