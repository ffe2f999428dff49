package web

import (
	"cmp"
	"context"
	"math"
	"slices"

	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/schema"
)

// EdgeTimer is a Backend that also times the calls along the dependency
// map's edges: the incident page then labels each edge with its p95 in
// the window beside its baseline's and marks the edges that slowed.
// Without it the map shows calls and errors only.
type EdgeTimer interface {
	// EdgeTimes times the calls of window and of baseline (a zero
	// baseline: none), per caller -> callee pair (TimeEdges).
	EdgeTimes(ctx context.Context, window, baseline rootcause.Window) ([]EdgeTime, error)
}

// EdgeTime is how long one caller -> callee edge's calls took: their
// count and p95 (milliseconds) in the window and in its baseline.
type EdgeTime struct {
	From      string  `json:"from"`
	To        string  `json:"to"`
	Calls     int     `json:"calls"`
	P95Ms     float64 `json:"p95_ms"`
	BaseCalls int     `json:"baseline_calls"`
	BaseP95Ms float64 `json:"baseline_p95_ms"`
}

// An edge slowed when its window's p95 is at least slowRatio times its
// baseline's and slowMinMs longer, each over at least slowMinCalls calls:
// a p95 of three calls is one call, and a 2 ms call that takes 5 ms is no
// news to whoever is on call.
const (
	slowRatio    = 1.5
	slowMinMs    = 50
	slowMinCalls = 5
)

// Slowed says whether the edge's calls slowed against its baseline.
func (e EdgeTime) Slowed() bool {
	return e.Calls >= slowMinCalls && e.BaseCalls >= slowMinCalls &&
		e.P95Ms >= e.BaseP95Ms*slowRatio && e.P95Ms-e.BaseP95Ms >= slowMinMs
}

// TimeEdges times the calls between services in the records of a window
// and of its baseline, the edges as rootcause draws them: a span whose
// parent span belongs to another service is a call from that service,
// taking the span's duration (the callee's answer); a client span that
// names a peer (PeerOf) and has no child span is a call to that peer
// (something that leaves no spans of its own), taking the client span's
// duration. Edges are sorted by caller, then callee.
func TimeEdges(window, baseline []schema.Record) []EdgeTime {
	now, base := callDurations(window), callDurations(baseline)
	out := make([]EdgeTime, 0, len(now))
	for k, ds := range now {
		e := EdgeTime{From: k[0], To: k[1], Calls: len(ds), P95Ms: p95Ms(ds)}
		if b := base[k]; len(b) > 0 {
			e.BaseCalls, e.BaseP95Ms = len(b), p95Ms(b)
		}
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b EdgeTime) int { return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To)) })
	return out
}

// spanKey names a span within its trace: span ids repeat across traces
// in generated and replayed data.
type spanKey struct {
	trace schema.TraceID
	span  schema.SpanID
}

// callDurations lists, per caller -> callee pair, the durations of the
// calls in recs, in milliseconds.
func callDurations(recs []schema.Record) map[[2]string][]float64 {
	svc := map[spanKey]string{}
	parents := map[spanKey]bool{}
	for i := range recs {
		r := &recs[i]
		if r.Type != schema.TypeSpan || r.SpanID == "" {
			continue
		}
		svc[spanKey{r.TraceID, r.SpanID}] = r.Service
		if r.ParentSpanID != "" {
			parents[spanKey{r.TraceID, r.ParentSpanID}] = true
		}
	}
	out := map[[2]string][]float64{}
	for i := range recs {
		r := &recs[i]
		if r.Type != schema.TypeSpan || r.Service == "" {
			continue
		}
		ms := float64(r.Duration.Microseconds()) / 1000
		if from := svc[spanKey{r.TraceID, r.ParentSpanID}]; r.ParentSpanID != "" && from != "" && from != r.Service {
			k := [2]string{from, r.Service}
			out[k] = append(out[k], ms)
		}
		if peer := rootcause.PeerOf(r); peer != "" && peer != r.Service && !parents[spanKey{r.TraceID, r.SpanID}] {
			k := [2]string{r.Service, peer}
			out[k] = append(out[k], ms)
		}
	}
	return out
}

// p95Ms is the nearest-rank 95th percentile of xs (sorted in place).
func p95Ms(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	return xs[min(len(xs)-1, int(math.Ceil(0.95*float64(len(xs))))-1)]
}

// maxSlowedShown caps the slowed edges named above the map's table.
const maxSlowedShown = 5

// addTimes puts the call times on the drawn edges: each edge's title gives
// its p95 beside its baseline's, an edge that slowed is marked, and those
// where the slowness enters (their callee's own calls did not slow: its
// callers' calls slowed because they wait on it) are labelled on the map
// where a label fits. Rows lists the timed edges for the table under the
// map, the slowed ones first (where the slowness enters first, then by
// how much they slowed); Slowed names the first few, SlowMore counts the
// rest.
func (v *graphView) addTimes(ts []EdgeTime) {
	by := map[[2]string]EdgeTime{}
	for _, t := range ts {
		by[[2]string{t.From, t.To}] = t
	}
	slowOut := map[string]bool{}
	for i := range v.Edges {
		e := &v.Edges[i]
		t, ok := by[[2]string{e.From, e.To}]
		if !ok || t.Calls == 0 {
			continue
		}
		e.P95, e.Calls = fmtMs(t.P95Ms), t.Calls
		base := "no calls in the baseline"
		if t.BaseCalls > 0 {
			e.BaseP95 = fmtMs(t.BaseP95Ms)
			base = "baseline " + e.BaseP95
		}
		e.Title += "; p95 " + e.P95 + " (" + base + ")"
		if t.Slowed() {
			e.Slow, e.ratio = true, t.P95Ms/t.BaseP95Ms
			e.Title += ", slower than its baseline"
			slowOut[e.From] = true
		}
	}
	rank := func(e gEdge) int {
		switch {
		case e.Slow && !slowOut[e.To]:
			return 0
		case e.Slow:
			return 1
		}
		return 2
	}
	var labels []box
	for i := range v.Edges {
		if e := &v.Edges[i]; rank(*e) == 0 {
			label := "p95 " + e.BaseP95 + " → " + e.P95
			if b, ok := v.placeLabel(e.curve, label, labels); ok {
				e.Label, e.LabelX, e.LabelY = label, b[0]+b[2]/2, b[1]+b[3]/2
				labels = append(labels, b)
			}
		}
		if v.Edges[i].P95 != "" {
			v.Rows = append(v.Rows, v.Edges[i])
		}
	}
	slices.SortStableFunc(v.Rows, func(a, b gEdge) int {
		return cmp.Or(cmp.Compare(rank(a), rank(b)), cmp.Compare(b.ratio, a.ratio), cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To))
	})
	for _, r := range v.Rows {
		switch {
		case !r.Slow:
		case len(v.Slowed) < maxSlowedShown:
			v.Slowed = append(v.Slowed, r)
		default:
			v.SlowMore++
		}
	}
}

// box is a rectangle on the map: x, y, width, height.
type box [4]int

func (a box) overlaps(b box) bool {
	return a[0] < b[0]+b[2] && b[0] < a[0]+a[2] && a[1] < b[1]+b[3] && b[1] < a[1]+a[3]
}

// Edge labels: about gLabelCharW units a character, gLabelH high.
const (
	gLabelCharW = 6
	gLabelH     = 13
)

// placeLabel finds a place on curve for label, its middle first, where it
// covers no service box and no label placed before; false when none fits
// (the table under the map has the numbers).
func (v *graphView) placeLabel(curve bezier, label string, placed []box) (box, bool) {
	w := len([]rune(label)) * gLabelCharW
	for _, t := range [...]float64{.5, .35, .65, .2, .8} {
		x, y := curve.at(t)
		b := box{x - w/2, y - gLabelH/2, w, gLabelH}
		free := b[0] >= 0 && b[0]+b[2] <= v.W
		for _, n := range v.Nodes {
			free = free && !b.overlaps(box{n.X, n.Y, gNodeW, gNodeH})
		}
		for _, p := range placed {
			free = free && !b.overlaps(p)
		}
		if free {
			return b, true
		}
	}
	return box{}, false
}

// edgeTimesKey is an edge timing's key in the analysis pool.
type edgeTimesKey struct{ from, to, baseFrom, baseTo int64 }

// edgeTimes asks an EdgeTimer backend for the call times of rep's window
// and baseline, through the analysis pool; nil when the backend cannot
// time edges or fails (the map then shows calls and errors only, and the
// failure is logged: the page is still worth showing).
func (s *server) edgeTimes(ctx context.Context, rep *rootcause.Report) []EdgeTime {
	et, ok := s.backend.(EdgeTimer)
	if !ok || len(rep.Edges) == 0 || !rep.Window.To.After(rep.Window.From) {
		return nil
	}
	var base rootcause.Window
	if rep.Baseline != nil {
		base = *rep.Baseline
	}
	key := edgeTimesKey{rep.Window.From.UnixNano(), rep.Window.To.UnixNano(), base.From.UnixNano(), base.To.UnixNano()}
	v, err := s.pool.do(ctx, key, s.cfg.RequestTimeout, func(actx context.Context) (any, error) {
		return et.EdgeTimes(actx, rep.Window, base)
	})
	if err != nil {
		s.log.Warn("cannot time the dependency map's edges", "err", err)
		return nil
	}
	ts, _ := v.([]EdgeTime)
	return ts
}
