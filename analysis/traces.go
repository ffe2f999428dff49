package analysis

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/faultline/faultline/correlate"
	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/schema"
)

// Limits of a trace list.
const (
	// MaxTraceRecords caps the records read for the window, and again for
	// its baseline: the newest are kept, where an incident is. Only the
	// attributes the analysis reads are asked for (rootcause.AttrKeys).
	MaxTraceRecords = 200_000
	// DefaultTraceRows and MaxTraceRows cap the rows of a list.
	DefaultTraceRows = 100
	MaxTraceRows     = 1000
	// statBuckets is how many buckets the per-service series have.
	statBuckets = 30
	// bandSigmas is the half-width of a baseline band, in standard
	// deviations of its buckets.
	bandSigmas = 2
	// A service leaves its baseline (onset) at the first bucket whose
	// error rate is above the band, or whose p95 is onsetMargin times the
	// band's top, when most of the onsetAfter buckets with requests that
	// follow are too: one slow request in a quiet bucket is no onset.
	onsetMargin = 1.2
	onsetAfter  = 3
)

// TracesQuery selects the traces of a window. Service keeps the traces
// that touch the service; Operation those with a span whose name contains
// it (any case); MinDuration those that lasted at least that long; Errors
// the failing ones. Limit caps the rows (0: DefaultTraceRows).
type TracesQuery struct {
	From, To    time.Time
	Service     string
	Operation   string
	MinDuration time.Duration
	Errors      bool
	Limit       int
}

// TraceList is the answer to a TracesQuery: the matching traces, failing
// first then slowest, and per service the request rate, error rate and
// p95 latency over the window beside its baseline's band.
type TraceList struct {
	Window rootcause.Window `json:"window"`
	// Baseline is the stretch before the window the bands come from (as
	// long as the window); nil when it holds nothing.
	Baseline  *rootcause.Window `json:"baseline,omitempty"`
	BucketSec float64           `json:"bucket_seconds"`
	Traces    int               `json:"traces"`  // traces in the window
	Matched   int               `json:"matched"` // of those, traces the filters keep
	Rows      []TraceRow        `json:"rows"`
	Services  []ServiceStats    `json:"services"`
	// Cut is set when the window held more records than MaxTraceRecords:
	// only the newest were read.
	Cut bool `json:"cut,omitempty"`
}

// TraceRow is one trace of the list, as its own analysis sees it.
type TraceRow struct {
	TraceID    schema.TraceID `json:"trace_id"`
	Start      time.Time      `json:"start"`
	DurationMs float64        `json:"duration_ms"`
	Service    string         `json:"service"`   // the root span's (or first record's) service
	Operation  string         `json:"operation"` // the root span's name, "" without spans
	Services   []string       `json:"services"`
	Failed     bool           `json:"failed"`
	// Origin is the trace's first error in causal order. Where it points
	// (the suspect) is left to the trace page, whose analysis also reads
	// the store around the trace (an open breaker's earlier failures).
	Origin *correlate.Event `json:"origin,omitempty"`
}

// ServiceStats is one service's series over the window, one value per
// bucket: requests it served (spans entering it from another service, or
// traces it appears in without spans), the share of them that failed, and
// the p95 duration of its entry spans (0: no span). Band is the baseline's
// usual range of each; Onset the first bucket whose error rate or p95 left
// its band upward; Deploys the versions first seen in the window.
type ServiceStats struct {
	Service  string    `json:"service"`
	Requests []int     `json:"requests"`
	Errors   []int     `json:"errors"`
	P95Ms    []float64 `json:"p95_ms"`
	Band     *Band     `json:"band,omitempty"`
	Onset    time.Time `json:"onset,omitzero"`
	Deploys  []Deploy  `json:"deploys,omitempty"`
}

// Band is the baseline's usual range per bucket: requests, error rate
// (0..1) and p95 in milliseconds, each mean ± bandSigmas deviations.
type Band struct {
	ReqLo   float64 `json:"requests_lo"`
	ReqHi   float64 `json:"requests_hi"`
	ErrLo   float64 `json:"error_rate_lo"`
	ErrHi   float64 `json:"error_rate_hi"`
	P95Lo   float64 `json:"p95_ms_lo"`
	P95Hi   float64 `json:"p95_ms_hi"`
	HasP95  bool    `json:"has_p95,omitempty"`
	Buckets int     `json:"buckets"` // buckets of the baseline that had requests
}

// Deploy is a version of a service first seen in the window.
type Deploy struct {
	Version string    `json:"version"`
	At      time.Time `json:"at"`
}

// Traces lists the window's traces and charts its services.
func (e *Engine) Traces(ctx context.Context, q TracesQuery) (*TraceList, error) {
	if !q.To.After(q.From) {
		return nil, fmt.Errorf("%w: the window ends before it starts", rootcause.ErrBadWindow)
	}
	span := q.To.Sub(q.From)
	out := &TraceList{Window: rootcause.Window{From: q.From, To: q.To}, BucketSec: span.Seconds() / statBuckets}
	recs, cut, err := e.readWindow(ctx, q.From, q.To)
	if err != nil {
		return nil, err
	}
	out.Cut = cut
	traces := groupByTrace(recs)
	out.Traces = len(traces)
	stats := newSeries(q.From, span)
	for _, tr := range traces {
		stats.add(tr)
		row := e.traceRow(tr)
		if !q.keeps(row, tr) {
			continue
		}
		out.Matched++
		out.Rows = append(out.Rows, row)
	}
	slices.SortFunc(out.Rows, func(a, b TraceRow) int {
		if a.Failed != b.Failed {
			if a.Failed {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(b.DurationMs, a.DurationMs), cmp.Compare(a.TraceID, b.TraceID))
	})
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultTraceRows
	}
	out.Rows = out.Rows[:min(len(out.Rows), min(limit, MaxTraceRows))]

	base := newSeries(q.From.Add(-span), span)
	if brecs, _, err := e.readWindow(ctx, q.From.Add(-span), q.From); err == nil && len(brecs) > 0 {
		for _, tr := range groupByTrace(brecs) {
			base.add(tr)
		}
		out.Baseline = &rootcause.Window{From: q.From.Add(-span), To: q.From}
	} else if err != nil && ctx.Err() != nil {
		return nil, err
	}
	out.Services = stats.services(base)
	return out, nil
}

// readWindow reads the newest MaxTraceRecords records of [from, to).
func (e *Engine) readWindow(ctx context.Context, from, to time.Time) ([]schema.Record, bool, error) {
	var recs []schema.Record
	q := schema.WindowQuery{From: from, To: to, Limit: MaxTraceRecords, Newest: true, Attrs: rootcause.AttrKeys}
	for r, err := range e.Store.WindowRecords(ctx, q) {
		if err != nil {
			return nil, false, err
		}
		recs = append(recs, r)
	}
	return recs, len(recs) >= MaxTraceRecords, nil
}

// groupByTrace splits records by trace id, in order of first record;
// records without a trace id are left out.
func groupByTrace(recs []schema.Record) [][]schema.Record {
	idx := map[schema.TraceID]int{}
	var out [][]schema.Record
	for _, r := range recs {
		if r.TraceID == "" {
			continue
		}
		i, ok := idx[r.TraceID]
		if !ok {
			i = len(out)
			idx[r.TraceID] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], r)
	}
	return out
}

// traceRow analyses one trace as its trace page would (without the
// timeline) and describes it.
func (e *Engine) traceRow(recs []schema.Record) TraceRow {
	opts := e.Correlate
	opts.SkipTimeline = true
	res := correlate.AnalyzeRecords(recs, opts)
	row := TraceRow{TraceID: recs[0].TraceID, Services: res.Services, Failed: res.Failed, Origin: res.Origin}
	lo, hi := recs[0].Time, recs[0].End()
	spans := map[schema.SpanID]bool{}
	for _, r := range recs {
		lo, hi = minTime(lo, r.Time), maxTime(hi, r.End())
		if r.Type == schema.TypeSpan {
			spans[r.SpanID] = true
		}
	}
	// The root is the longest span whose parent is not in the trace.
	var root *schema.Record
	for i := range recs {
		r := &recs[i]
		if r.Type == schema.TypeSpan && !spans[r.ParentSpanID] && (root == nil || r.Duration > root.Duration) {
			root = r
		}
	}
	row.Start, row.Service = lo, recs[0].Service
	row.DurationMs = float64(hi.Sub(lo).Microseconds()) / 1000
	if root != nil {
		row.Service, row.Operation = root.Service, root.Name
		row.DurationMs = float64(root.Duration.Microseconds()) / 1000
	}
	if !res.Start.IsZero() {
		row.Start = res.Start
	}
	if res.Duration > 0 {
		row.DurationMs = res.Duration
	}
	return row
}

// keeps applies q's filters to a trace.
func (q TracesQuery) keeps(row TraceRow, recs []schema.Record) bool {
	if q.Errors && !row.Failed || q.MinDuration > 0 && row.DurationMs < float64(q.MinDuration)/float64(time.Millisecond) {
		return false
	}
	if q.Service != "" && !slices.Contains(row.Services, q.Service) {
		return false
	}
	if q.Operation == "" {
		return true
	}
	op := strings.ToLower(q.Operation)
	for _, r := range recs {
		if r.Type == schema.TypeSpan && strings.Contains(strings.ToLower(r.Name), op) {
			return true
		}
	}
	return false
}

// series accumulates per-service buckets over one window.
type series struct {
	from   time.Time
	bucket time.Duration
	svcs   map[string]*svcSeries
}

type svcSeries struct {
	requests, errors []int
	durations        [][]float64 // ms, per bucket
	versions         map[string]time.Time
}

func newSeries(from time.Time, span time.Duration) *series {
	return &series{from: from, bucket: max(span/statBuckets, time.Nanosecond), svcs: map[string]*svcSeries{}}
}

func (s *series) svc(name string) *svcSeries {
	v := s.svcs[name]
	if v == nil {
		v = &svcSeries{requests: make([]int, statBuckets), errors: make([]int, statBuckets),
			durations: make([][]float64, statBuckets), versions: map[string]time.Time{}}
		s.svcs[name] = v
	}
	return v
}

func (s *series) at(t time.Time) int {
	return min(max(int(t.Sub(s.from)/s.bucket), 0), statBuckets-1)
}

// add counts one trace: each entry span of a service (its parent of
// another service, or none) is a request to it, failed when the span has
// an error status; a client span to a peer absent from the trace is a
// request to that peer; a service with no span in the trace counts one
// request at its first record, failed when it logged an error.
func (s *series) add(recs []schema.Record) {
	spanSvc := map[schema.SpanID]string{}
	present := map[string]bool{}
	for _, r := range recs {
		present[r.Service] = true
		if r.Type == schema.TypeSpan && r.SpanID != "" {
			spanSvc[r.SpanID] = r.Service
		}
	}
	type seen struct {
		first        time.Time
		spans, error bool
	}
	per := map[string]*seen{}
	for _, r := range recs {
		if r.Service == "" {
			continue
		}
		p := per[r.Service]
		if p == nil {
			p = &seen{first: r.Time}
			per[r.Service] = p
		}
		p.first = minTime(p.first, r.Time)
		p.error = p.error || r.IsError()
		if v := r.Attrs[schema.AttrServiceVersion]; v != "" {
			vs := s.svc(r.Service).versions
			if t, ok := vs[v]; !ok || r.Time.Before(t) {
				vs[v] = r.Time
			}
		}
		if r.Type == schema.TypeSpan {
			// A call to a peer that left no records of its own (a
			// third-party API) is a request to it as its caller saw it.
			if peer := rootcause.PeerOf(&r); peer != "" && peer != r.Service && !present[peer] {
				s.request(peer, r)
			}
		}
		if r.Type != schema.TypeSpan || spanSvc[r.ParentSpanID] == r.Service && r.ParentSpanID != "" {
			continue
		}
		p.spans = true
		s.request(r.Service, r)
	}
	for name, p := range per {
		v, b := s.svc(name), s.at(p.first)
		if !p.spans {
			v.requests[b]++
			if p.error {
				v.errors[b]++
			}
		}
	}
}

// request counts span r as a request to svc.
func (s *series) request(svc string, r schema.Record) {
	v, b := s.svc(svc), s.at(r.Time)
	v.requests[b]++
	v.durations[b] = append(v.durations[b], float64(r.Duration.Microseconds())/1000)
	if r.Status == schema.StatusError {
		v.errors[b]++
	}
}

// services turns the window's series into ServiceStats beside the
// baseline's, services with the most errors first.
func (s *series) services(base *series) []ServiceStats {
	var out []ServiceStats
	for name, v := range s.svcs {
		st := ServiceStats{Service: name, Requests: v.requests, Errors: v.errors, P95Ms: make([]float64, statBuckets)}
		for i, d := range v.durations {
			st.P95Ms[i] = p95(d)
		}
		var old map[string]time.Time
		if b := base.svcs[name]; b != nil {
			st.Band, old = band(b), b.versions
		}
		st.Onset = s.onset(st)
		for ver, at := range v.versions {
			if _, ok := old[ver]; !ok && len(old) > 0 {
				st.Deploys = append(st.Deploys, Deploy{Version: ver, At: at})
			}
		}
		slices.SortFunc(st.Deploys, func(a, b Deploy) int { return a.At.Compare(b.At) })
		out = append(out, st)
	}
	slices.SortFunc(out, func(a, b ServiceStats) int {
		return cmp.Or(cmp.Compare(sum(b.Errors), sum(a.Errors)), cmp.Compare(sum(b.Requests), sum(a.Requests)), cmp.Compare(a.Service, b.Service))
	})
	return out
}

// onset is the start of the first bucket whose error rate or p95 is above
// the baseline's band (zero without a band or when none is).
func (s *series) onset(st ServiceStats) time.Time {
	if st.Band == nil {
		return time.Time{}
	}
	out := func(i int) bool {
		if st.Requests[i] == 0 {
			return false
		}
		rate := float64(st.Errors[i]) / float64(st.Requests[i])
		return rate > st.Band.ErrHi && st.Errors[i] > 1 ||
			st.Band.HasP95 && st.P95Ms[i] > st.Band.P95Hi*onsetMargin
	}
	for i := range st.Requests {
		if !out(i) {
			continue
		}
		// Sustained: most of the next buckets that saw requests are out too.
		seen, outs := 0, 0
		for j := i + 1; j < len(st.Requests) && seen < onsetAfter; j++ {
			if st.Requests[j] > 0 {
				seen++
				if out(j) {
					outs++
				}
			}
		}
		if seen > 0 && outs*2 > seen {
			return s.from.Add(time.Duration(i) * s.bucket)
		}
	}
	return time.Time{}
}

// band is a baseline's usual range per bucket.
func band(b *svcSeries) *Band {
	var reqs, errs, p95s []float64
	for i, n := range b.requests {
		reqs = append(reqs, float64(n))
		if n > 0 {
			errs = append(errs, float64(b.errors[i])/float64(n))
		}
		if len(b.durations[i]) > 0 {
			p95s = append(p95s, p95(b.durations[i]))
		}
	}
	bd := &Band{Buckets: len(errs)}
	bd.ReqLo, bd.ReqHi = meanBand(reqs)
	bd.ErrLo, bd.ErrHi = meanBand(errs)
	bd.ErrHi = min(bd.ErrHi, 1)
	if len(p95s) > 0 {
		bd.HasP95 = true
		bd.P95Lo, bd.P95Hi = meanBand(p95s)
	}
	return bd
}

func meanBand(xs []float64) (lo, hi float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	var m, v float64
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	sd := math.Sqrt(v / float64(len(xs)))
	return max(m-bandSigmas*sd, 0), m + bandSigmas*sd
}

// p95 is the nearest-rank 95th percentile of xs (0 when empty).
func p95(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[min(len(s)-1, int(math.Ceil(0.95*float64(len(s))))-1)]
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
