package correlate

import (
	"context"
	"fmt"

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
		res = NewStoreRules(ws, opts).Apply(ctx, recs, res)
	}
	res.lead, res.caller = nil, nil
	if capped {
		res.Warnings = append(res.Warnings,
			fmt.Sprintf("the trace has more than %d records; only %d were analysed", limit, limit))
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
