package correlate

import (
	"context"
	"fmt"
	"slices"

	"github.com/faultline/faultline/schema"
)

// AnalyzeRecords explains one trace from its records (logs and spans, in
// any order): origin, cascade, suspect, and unless opts.SkipTimeline the
// causal timeline. It is pure: recs is neither modified nor retained, and
// the same records give the same Result. Records of another trace id than
// the first one are ignored with a warning. No records give a Result with
// Failed false and Events 0.
func AnalyzeRecords(recs []schema.Record, opts Options) *Result {
	t := &Trace{recs: recs, opts: opts, origin: -1, res: &Result{Cascade: []Event{}}}
	if opts.Steps == nil {
		runDefaultSteps(t)
	}
	for _, s := range opts.Steps {
		s.Apply(t)
	}
	finish(t)
	return t.res
}

// Analyze reads the records of trace id from st and analyses them. An id
// with no records gives an error matching ErrUnknownTrace (and
// schema.ErrNotFound); a read failure is returned wrapped. When the store
// caps the records, the result is of those read and carries a warning.
func Analyze(ctx context.Context, st Store, id schema.TraceID, opts Options) (*Result, error) {
	limit := opts.Limit
	if limit <= 0 {
		limit = DefaultRecordLimit
	}
	var recs []schema.Record
	// One more than the limit tells a trace of exactly limit records from
	// a larger one.
	for r, err := range st.TraceRecords(ctx, id, limit+1) {
		if err != nil {
			return nil, fmt.Errorf("cannot load trace %q: %w", quote(string(id)), err)
		}
		recs = append(recs, r)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("cannot load trace %q: %w", quote(string(id)), ErrUnknownTrace)
	}
	capped := len(recs) > limit
	if capped {
		recs = recs[:limit]
	}
	res := AnalyzeRecords(recs, opts)
	if ws, ok := st.(WindowStore); ok {
		var err error
		if res, err = skipUsual(ctx, ws, recs, res, opts); err != nil {
			res.Warnings = append(res.Warnings, fmt.Sprintf("cannot read how often %s logged its error before: %v",
				res.Suspect.Service, err))
		}
		if res.lead != nil {
			followBreaker(ctx, ws, res, opts)
		}
		if res.caller != nil && res.Suspect != nil {
			blameTroubledCaller(ctx, ws, res)
		}
	}
	res.lead, res.caller = nil, nil
	if capped {
		res.Warnings = append(res.Warnings,
			fmt.Sprintf("the trace has more than %d records; only %d were analysed", limit, limit))
	}
	return res, nil
}

// usualRounds caps the errors found to be noise for one trace.
const usualRounds = 3

// skipUsual re-walks a trace whose suspect failed on its own with an
// error that need not fail a request (unknown, deterministic, auth, not
// found) and that its service logged as often in the hour before: noise
// it always makes (a locale it cannot resolve, an audit sink refusing),
// not what failed this trace. The walk then treats that error as
// incidental and settles elsewhere, when anything else failed.
func skipUsual(ctx context.Context, st WindowStore, recs []schema.Record, res *Result, opts Options) (*Result, error) {
	seen := map[schema.Signature]bool{}
	for range usualRounds {
		s := res.Suspect
		if s == nil || res.ownSig == "" || !isWeak(s.Kind) || seen[res.ownSig] {
			return res, nil
		}
		seen[res.ownSig] = true
		usual, err := usualError(ctx, st, s.Service, res.ownSig, res.ownAt, map[schema.Signature]bool{})
		if err != nil || !usual {
			return res, err
		}
		opts.usual = append(slices.Clip(opts.usual), res.ownSig)
		again := AnalyzeRecords(recs, opts)
		if again.Suspect == nil {
			return res, nil
		}
		again.Suspect.Reason += fmt.Sprintf("; %s logs %q as often as in the hour before, so that error is not what failed this trace",
			s.Service, oneLine(messageOf(&recs[res.ownRec]), 80))
		res = again
	}
	return res, nil
}

// finish fills the parts of the Result that summarise the whole trace.
func finish(t *Trace) {
	res := t.res
	res.TraceID = t.ID
	res.Failed = t.origin >= 0
	res.Events = len(t.ents)
	if len(t.ents) > 0 {
		from, to := t.span()
		res.Start = from
		res.Duration = float64(to.Sub(from).Microseconds()) / 1000
	}
	res.Services = make([]string, len(t.svcs))
	for i := range t.svcs {
		res.Services[i] = t.svcs[i].name
	}
	res.Warnings = collapse(t.warnings)
	if !t.opts.SkipTimeline {
		res.Timeline = timeline(t)
	}
	res.Failures = failures(t)
	res.Edges = edges(t)
	res.Spans = spanSummaries(t)
}

// collapse keeps one copy of each warning, in first-seen order, with how
// many times it was given ("... (5 times)").
func collapse(ws []string) []string {
	if len(ws) < 2 {
		return ws
	}
	n := make(map[string]int, len(ws))
	var out []string
	for _, w := range ws {
		if n[w] == 0 {
			out = append(out, w)
		}
		n[w]++
	}
	for i, w := range out {
		if n[w] > 1 {
			out[i] = fmt.Sprintf("%s (%d times)", w, n[w])
		}
	}
	return out
}
