package rootcause

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/faultline/faultline/correlate"
	"github.com/faultline/faultline/schema"
)

// Defaults of Options.
const (
	DefaultBaseline = time.Hour
	// MaxBaseline is how far back the baseline widens when the default
	// period before the window holds less data than the window itself.
	MaxBaseline = 24 * time.Hour
	DefaultTop  = 10
	// DefaultRecordLimit caps the records read for the window and, again,
	// for the baseline.
	DefaultRecordLimit = 5_000_000
	// DefaultBuckets is how many buckets the error timeline per service has.
	DefaultBuckets = 30
)

// ErrNoData is returned when the window holds no records at all.
var ErrNoData = errors.New("no records in the window")

// ErrBadWindow is returned for a window whose end is not after its start.
var ErrBadWindow = errors.New("the window's end must be after its start")

// Query selects the incident: the window [From, To), and optionally the
// service an alert named (candidates are then limited to that service and
// what it depends on, when the call graph is known).
type Query struct {
	From, To time.Time
	Service  string
	Top      int
}

// Options tune the analysis; the zero value is the default everywhere.
type Options struct {
	// Baseline is how long a period before the window is the baseline; 0
	// means DefaultBaseline. The baseline shrinks to what the store holds.
	Baseline time.Duration
	// Limit caps the records read per period; 0 means DefaultRecordLimit.
	Limit int
	// Buckets is the resolution of the per-service error timeline.
	Buckets int
	// Correlate tunes the per-trace analysis.
	Correlate correlate.Options
}

func (o Options) withDefaults() Options {
	if o.Baseline <= 0 {
		o.Baseline = DefaultBaseline
	}
	if o.Limit <= 0 {
		o.Limit = DefaultRecordLimit
	}
	if o.Buckets <= 0 {
		o.Buckets = DefaultBuckets
	}
	o.Correlate.SkipTimeline = true
	return o
}

// Analyze reads the window and its baseline from st and ranks the
// root-cause candidates. An empty window is ErrNoData.
func Analyze(ctx context.Context, st Store, q Query, opt Options) (*Report, error) {
	if !q.To.After(q.From) {
		return nil, ErrBadWindow
	}
	opt = opt.withDefaults()
	win, err := readPeriod(ctx, st, q.From, q.To, opt)
	if err != nil {
		return nil, err
	}
	if len(win) == 0 {
		return nil, ErrNoData
	}
	baseFrom := q.From.Add(-baselineSpan(opt.Baseline, q, len(win)))
	first, _, err := st.Bounds(ctx)
	if err != nil || first.IsZero() {
		first = baseFrom
	}
	if first.After(baseFrom) {
		baseFrom = first
	}
	var base []schema.Record
	if baseFrom.Before(q.From) {
		if base, err = readPeriod(ctx, st, baseFrom, q.From, opt); err != nil {
			return nil, err
		}
	}
	// A baseline thinner than the window cannot tell the window's noise
	// from a change: widen it to what the store holds before, up to
	// MaxBaseline.
	wider := q.From.Add(-MaxBaseline)
	if first.After(wider) {
		wider = first
	}
	if len(base) < len(win) && wider.Before(baseFrom) {
		baseFrom = wider
		if base, err = readPeriod(ctx, st, baseFrom, q.From, opt); err != nil {
			return nil, err
		}
	}
	return AnalyzeRecords(win, base, q, Window{From: baseFrom, To: q.From}, opt), nil
}

// baselineSpan is how far before the window the baseline reaches: the
// configured duration, shortened so that at the window's record rate it
// holds about BaselineRecords(n) records. A busy system's hour before the
// window would otherwise cost many times the window to read.
func baselineSpan(want time.Duration, q Query, n int) time.Duration {
	win := q.To.Sub(q.From)
	limit := BaselineRecords(n)
	if n <= limit {
		return want
	}
	return min(want, time.Duration(float64(win)*float64(limit)/float64(n)))
}

// BaselineRecords is about how many baseline records the analysis reads for
// a window of n records: as many as the window, at least 200k, at most 1M.
func BaselineRecords(n int) int { return min(max(n, 200_000), 1_000_000) }

// readPeriod reads a period's records into one slice. They are gathered in
// fixed-size chunks and copied once, since growing one slice by appending
// would copy a million records several times over.
func readPeriod(ctx context.Context, st Store, from, to time.Time, opt Options) ([]schema.Record, error) {
	const chunk = 1 << 14
	var chunks [][]schema.Record
	cur := make([]schema.Record, 0, chunk)
	n := 0
	for r, err := range st.WindowRecords(ctx, schema.WindowQuery{From: from, To: to, Limit: opt.Limit}) {
		if err != nil {
			return nil, fmt.Errorf("cannot read records from %s to %s: %w",
				from.Format(time.RFC3339), to.Format(time.RFC3339), err)
		}
		if len(cur) == chunk {
			chunks = append(chunks, cur)
			cur = make([]schema.Record, 0, chunk)
		}
		cur = append(cur, r)
		n++
	}
	if len(chunks) == 0 {
		return cur, nil
	}
	out := make([]schema.Record, 0, n)
	for _, c := range chunks {
		out = append(out, c...)
	}
	return append(out, cur...), nil
}

// AnalyzeRecords ranks the candidates of window given the records of the
// window and of the baseline period before it (either may be empty). It is
// pure and deterministic: the same records give the same report.
func AnalyzeRecords(window, baseline []schema.Record, q Query, baseWin Window, opt Options) *Report {
	opt = opt.withDefaults()
	// The baseline's profile is built on another core while the window's
	// traces are explained; the two share nothing until the votes are
	// weighed against the baseline.
	b := newPeriod(baseWin.From, baseWin.To)
	baseDone := make(chan struct{})
	go func() {
		defer close(baseDone)
		for i := range baseline {
			b.add(&baseline[i], 0)
		}
		eachTrace(baseline, func(recs []schema.Record) { b.addSelfTimes(recs); b.addBehaviour(recs) })
	}()
	w := newPeriod(q.From, q.To)
	for i := range window {
		w.add(&window[i], opt.Buckets)
	}
	tr := analyzeTraces(window, w, b, baseDone, opt)
	rep := &Report{
		Window:       Window{From: q.From, To: q.To},
		Traces:       tr.traces,
		FailedTraces: tr.failed,
	}
	if len(baseline) > 0 {
		rep.Baseline = &baseWin
	} else {
		rep.Warnings = append(rep.Warnings, "no baseline before the window: novelty and latency changes cannot be judged")
	}
	in := &inputs{win: w, base: b, traces: tr, q: q}
	cands := rank(in)
	top := q.Top
	if top <= 0 {
		top = DefaultTop
	}
	if len(cands) > top {
		cands = cands[:top]
	}
	rep.Candidates = cands
	rep.Services = summarize(w, cands, tr, opt.Buckets)
	rep.Edges = tr.edgeList()
	return rep
}
