package rootcause

import (
	"context"

	"github.com/faultline/faultline/correlate"
	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store/backend"
)

// The incident's suspect for a trace is the suspect the trace's own
// analysis names (traceSuspect of explain's result): what `analyze trace`
// names for it and what its vote starts from. The incident then weighs the
// window's votes together (names settled across traces, a troubled or
// discredited target given back to the origin, pointer chains followed:
// see analyzeTraces), and a vote may end at another service than its
// trace's suspect; the candidate's example traces are those whose own
// suspect it is, when it has any (tally).

// storeRules are correlate's rules that read the store beyond one trace
// (the breakers followed to what tripped them, a caller's trouble or new
// version, a service's usual noise), applied to the window's failing
// traces as `analyze trace` applies them: one trace, one suspect, whichever
// command asks. Analyze has a store; AnalyzeRecords, pure, has none.
type storeRules struct {
	ctx   context.Context
	rules *correlate.StoreRules
}

// apply completes a trace's explanation (correlate.Analyze's, of the
// records the window holds): the store's rules, when sr is not nil, on its
// own analysis res (correlate.AnalyzeRecords, made ahead: eachExplained).
func (sr *storeRules) apply(recs []schema.Record, res *correlate.Result) *correlate.Result {
	if sr == nil || res == nil || !res.Failed {
		return res
	}
	return sr.rules.Apply(sr.ctx, recs, res)
}

// traceSuspect is the service a failing trace's analysis names as its
// suspect, and the kind; the origin's when it names none.
func traceSuspect(res *correlate.Result) (string, schema.Kind) {
	if res.Suspect != nil && res.Suspect.Service != "" {
		return res.Suspect.Service, res.Suspect.Kind
	}
	return res.Origin.Service, res.Origin.Class
}

// newStoreRules returns the store rules of st for Analyze's traces. They
// read under their own count of damaged blocks skipped (rulesContext).
func newStoreRules(ctx context.Context, st Store, opts correlate.Options) *storeRules {
	return &storeRules{ctx: rulesContext(ctx), rules: correlate.NewStoreRules(st, opts)}
}

// rulesContext is the context of the store rules' reads. When ctx asks
// reads to skip blocks of the store that cannot be decoded and count them
// (backend.WithSkipped, which package store re-exports), the rules' reads
// skip them too, as `analyze trace`'s do, but count them apart: the
// report warns of what the window's and the baseline's reads skipped,
// and the rules, reading around each trace, read the same blocks again
// and again.
func rulesContext(ctx context.Context) context.Context {
	if backend.SkippedFrom(ctx) == nil {
		return ctx
	}
	c, _ := backend.WithSkipped(noValues{ctx})
	return c
}

// noValues is a context with the deadline and cancellation of the one it
// wraps and none of its values: the only value a read looks for is the
// count of skipped blocks.
type noValues struct{ context.Context }

func (noValues) Value(any) any { return nil }
