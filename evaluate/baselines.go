package evaluate

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/faultline/faultline/correlate"
	"github.com/faultline/faultline/patterns"
	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store"
)

// Baseline methods: plain rules scored beside the analysis on the same
// cases (`analyze eval --baselines`), so that its figures have something
// to be measured against. Each ranks services from the window's records
// and the baseline period's, and from nothing else.
const (
	// EarliestError votes, across the window's failing traces, for the
	// service of each one's earliest error record.
	EarliestError = "earliest_error"
	// CallWait ranks callees by the share of the calls into them that
	// waited much longer than the same caller's calls did in the baseline.
	CallWait = "call_wait"
	// DeployOrNewError ranks first the services that deployed a new
	// version shortly before the first error, then the services that the
	// window's new error templates point at, in time order.
	DeployOrNewError = "deploy_or_new_error"
)

// BaselineMethods lists the baseline methods in the order they are reported.
func BaselineMethods() []string { return []string{EarliestError, CallWait, DeployOrNewError} }

// RankBaseline ranks services by method, given the window's records and
// the baseline period's; nil for an unknown method.
func RankBaseline(method string, window, base []schema.Record) []string {
	switch method {
	case EarliestError:
		return earliestError(window)
	case CallWait:
		return callWait(window, base)
	case DeployOrNewError:
		return deployOrNewError(window, base)
	}
	return nil
}

// Baselines ranks the case with every baseline method, reading its window
// and baseline once. Each result holds the rank of the truth and the
// first services; none names a kind.
func (cs *CaseStore) Baselines(ctx context.Context) (map[string]*CaseResult, error) {
	t := cs.c.Truth
	window, base, err := readPeriods(ctx, cs.st, t.Window.From, t.Window.To)
	if err != nil {
		return nil, fmt.Errorf("cannot read case %q for the baselines: %w", cs.c.Name, err)
	}
	out := map[string]*CaseResult{}
	for _, m := range BaselineMethods() {
		start := time.Now()
		ranks := RankBaseline(m, window, base)
		res := &CaseResult{Case: cs.c.Name, Truth: t.RootCause.Service, FaultType: t.RootCause.FaultType,
			Records: int64(len(window) + len(base)), Seconds: time.Since(start).Seconds()}
		if i := slices.Index(ranks, res.Truth); i >= 0 {
			res.Rank = i + 1
		}
		res.Top = ranks[:min(len(ranks), topOf(cs.opt))]
		out[m] = res
	}
	return out, nil
}

// baselineAttrs are the attributes the baseline methods read: the
// analysis's, and db.system for a call to a database that names no peer.
var baselineAttrs = append(slices.Clip(rootcause.AttrKeys), "db.system")

// readPeriods reads the window's records and the baseline's, each ordered
// by time. The baseline is the hour before the window; when that holds
// nothing, what the store holds before the window; when that holds nothing
// either, what it holds after (rootcause's last resort too). A widened
// baseline holds at most as many records as rootcause reads for one.
func readPeriods(ctx context.Context, st store.Store, from, to time.Time) (window, base []schema.Record, err error) {
	if window, err = readRecords(ctx, st, from, to, rootcause.DefaultRecordLimit); err != nil {
		return nil, nil, err
	}
	hour := from.Add(-rootcause.DefaultBaseline)
	if base, err = readRecords(ctx, st, hour, from, rootcause.DefaultRecordLimit); err != nil || len(base) > 0 {
		return window, base, err
	}
	first, last, err := st.Bounds(ctx)
	if err != nil || first.IsZero() {
		return window, nil, err
	}
	limit := rootcause.BaselineRecords(len(window))
	if first.Before(hour) {
		if base, err = readRecords(ctx, st, first, from, limit); err != nil || len(base) > 0 {
			return window, base, err
		}
	}
	if end := last.Add(time.Nanosecond); end.After(to) {
		if far := to.Add(rootcause.MaxBaseline); end.After(far) {
			end = far
		}
		base, err = readRecords(ctx, st, to, end, limit)
	}
	return window, base, err
}

func readRecords(ctx context.Context, st store.Store, from, to time.Time, limit int) ([]schema.Record, error) {
	var out []schema.Record
	for r, err := range st.WindowRecords(ctx, schema.WindowQuery{From: from, To: to, Limit: limit, Attrs: baselineAttrs}) {
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// earliestError: in each failing trace of the window (one with an error
// record), the service of its earliest error record gets a vote.
func earliestError(window []schema.Record) []string {
	first := map[schema.TraceID]*schema.Record{}
	for i := range window {
		r := &window[i]
		if r.TraceID == "" || r.Service == "" || !r.IsError() {
			continue
		}
		if f := first[r.TraceID]; f == nil || r.Time.Before(f.Time) {
			first[r.TraceID] = r
		}
	}
	votes := map[string]int{}
	for _, r := range first {
		votes[r.Service]++
	}
	score := map[string]float64{}
	for svc, n := range votes {
		score[svc] = float64(n)
	}
	return ranked(score, nil)
}

// Gates of call_wait.
const (
	// waitMinBase is how many baseline calls an edge needs for its median
	// and 95th percentile.
	waitMinBase = 5
	// waitMinCalls is how many calls into a callee the window needs for
	// the share of slow ones to say anything.
	waitMinCalls = 5
)

// callWait: a call waited too long when its wait (the caller's span less
// the callee's) exceeds both the 95th percentile and twice the median of
// the same edge's waits in the baseline. Callees rank by their share of
// such calls in the window; ties by more slow calls, then by name.
func callWait(window, base []schema.Record) []string {
	known := services(window, base)
	before := callWaits(base, known)
	slow, calls := map[string]int{}, map[string]int{}
	for e, waits := range callWaits(window, known) {
		b := before[e]
		if len(b) < waitMinBase {
			continue
		}
		slices.Sort(b)
		limit := max(b[min(len(b)*95/100, len(b)-1)], 2*b[len(b)/2])
		for _, w := range waits {
			calls[e.to]++
			if w > limit {
				slow[e.to]++
			}
		}
	}
	share := map[string]float64{}
	for svc, n := range slow {
		if calls[svc] >= waitMinCalls {
			share[svc] = float64(n) / float64(calls[svc])
		}
	}
	return ranked(share, slow)
}

// callEdge is a caller and its callee.
type callEdge struct{ from, to string }

// callWaits lists the waits of the calls in recs per edge. A span whose
// only child span is another service's is a call to it, and waited its
// duration less the child's; a client span without child spans that
// names its peer (a database, a third-party API) is a call that waited
// its whole duration.
func callWaits(recs []schema.Record, known map[string]bool) map[callEdge][]time.Duration {
	type spanKey struct {
		trace schema.TraceID
		span  schema.SpanID
	}
	children := map[spanKey][]*schema.Record{}
	for i := range recs {
		if r := &recs[i]; r.Type == schema.TypeSpan && r.ParentSpanID != "" {
			k := spanKey{r.TraceID, r.ParentSpanID}
			children[k] = append(children[k], r)
		}
	}
	out := map[callEdge][]time.Duration{}
	for i := range recs {
		r := &recs[i]
		if r.Type != schema.TypeSpan || r.Service == "" || r.SpanID == "" {
			continue
		}
		kids := children[spanKey{r.TraceID, r.SpanID}]
		switch {
		case len(kids) == 1 && kids[0].Service != "" && kids[0].Service != r.Service:
			e := callEdge{r.Service, kids[0].Service}
			out[e] = append(out[e], r.Duration-kids[0].Duration)
		case len(kids) == 0 && isClient(r):
			if p := peerOf(r, known); p != "" && p != r.Service {
				e := callEdge{r.Service, p}
				out[e] = append(out[e], r.Duration)
			}
		}
	}
	return out
}

// isClient reports whether a span calls out: its kind says client or
// producer, or it says no kind.
func isClient(r *schema.Record) bool {
	k := strings.ToLower(cmp.Or(r.Attrs["span.kind"], r.Attrs["otel.span.kind"]))
	return k == "" || strings.Contains(k, "client") || strings.Contains(k, "producer")
}

// peerOf names the peer a client span calls (rootcause.PeerOf, else
// db.system); a host name whose first label is a known service (a
// Kubernetes service's name.namespace.svc.cluster.local) is that service.
func peerOf(r *schema.Record, known map[string]bool) string {
	p := cmp.Or(rootcause.PeerOf(r), r.Attrs["db.system"])
	if label, _, ok := strings.Cut(p, "."); ok && known[label] {
		return label
	}
	return p
}

// services is the set of services that wrote records.
func services(periods ...[]schema.Record) map[string]bool {
	out := map[string]bool{}
	for _, recs := range periods {
		for i := range recs {
			out[recs[i].Service] = true
		}
	}
	return out
}

// deployLead is how long before the window's first error a new version
// may have appeared and still be its cause.
const deployLead = 5 * time.Minute

// deployOrNewError ranks first the services whose version in the window
// is one the baseline never saw, first seen at most deployLead before the
// window's first error (earliest first); then, for each error template
// new in the window (absent from the baseline's) in time order, the
// service its trace's analysis names: the suspect, else the origin.
func deployOrNewError(window, base []schema.Record) []string {
	out := deployed(window, base)
	known := map[schema.Signature]bool{}
	for i := range base {
		if r := &base[i]; r.Type == schema.TypeLog || r.IsError() {
			known[signatureOf(r)] = true
		}
	}
	first := map[schema.Signature]*schema.Record{} // each new template's first error
	for i := range window {
		r := &window[i]
		if !r.IsError() {
			continue
		}
		sig := signatureOf(r)
		if f := first[sig]; !known[sig] && (f == nil || r.Time.Before(f.Time)) {
			first[sig] = r
		}
	}
	news := slices.SortedFunc(maps.Values(first), func(a, b *schema.Record) int {
		return cmp.Or(a.Time.Compare(b.Time), cmp.Compare(a.Service, b.Service), cmp.Compare(a.Body, b.Body))
	})
	named := namer(window)
	for _, r := range news {
		if svc := named(r); svc != "" && !slices.Contains(out, svc) {
			out = append(out, svc)
		}
	}
	return out
}

// deployed lists the services whose version in the window the baseline
// never saw (and that the baseline saw with another version), first seen
// no earlier than deployLead before the window's first error; earliest
// first.
func deployed(window, base []schema.Record) []string {
	versions := map[string]map[string]bool{}
	for i := range base {
		r := &base[i]
		if v := r.Attrs[schema.AttrServiceVersion]; v != "" {
			if versions[r.Service] == nil {
				versions[r.Service] = map[string]bool{}
			}
			versions[r.Service][v] = true
		}
	}
	var firstErr time.Time
	seen := map[string]time.Time{} // per service, when its new version first shows
	for i := range window {
		r := &window[i]
		if r.IsError() && (firstErr.IsZero() || r.Time.Before(firstErr)) {
			firstErr = r.Time
		}
		v := r.Attrs[schema.AttrServiceVersion]
		if old := versions[r.Service]; v == "" || old == nil || old[v] {
			continue
		}
		if at, ok := seen[r.Service]; !ok || r.Time.Before(at) {
			seen[r.Service] = r.Time
		}
	}
	var out []string
	for svc, at := range seen {
		if firstErr.IsZero() || !at.Before(firstErr.Add(-deployLead)) {
			out = append(out, svc)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return cmp.Or(seen[a].Compare(seen[b]), cmp.Compare(a, b)) })
	return out
}

// signatureOf is a record's template signature, as rootcause's profile
// takes it: the one computed at ingest, else its masked body's (its
// operation's, for a span without a message).
func signatureOf(r *schema.Record) schema.Signature {
	if r.Signature != "" {
		return r.Signature
	}
	tmpl := r.Name
	if r.Body != "" {
		tmpl = patterns.Mask(r.Body)
	}
	return patterns.SignatureOf(r.Service, tmpl)
}

// namer returns the service an error record's trace points at, per the
// per-trace analysis of the window's records of that trace: its suspect,
// else its origin, else the record's own service. Each trace is analysed
// once.
func namer(window []schema.Record) func(*schema.Record) string {
	var idx map[schema.TraceID][]int
	cache := map[schema.TraceID]string{}
	return func(r *schema.Record) string {
		if r.TraceID == "" {
			return r.Service
		}
		if svc, ok := cache[r.TraceID]; ok {
			return cmp.Or(svc, r.Service)
		}
		if idx == nil {
			idx = map[schema.TraceID][]int{}
			for i := range window {
				idx[window[i].TraceID] = append(idx[window[i].TraceID], i)
			}
		}
		recs := make([]schema.Record, 0, len(idx[r.TraceID]))
		for _, i := range idx[r.TraceID] {
			recs = append(recs, window[i])
		}
		res := correlate.AnalyzeRecords(recs, correlate.Options{SkipTimeline: true})
		svc := ""
		if res.Suspect != nil {
			svc = res.Suspect.Service
		} else if res.Origin != nil {
			svc = res.Origin.Service
		}
		cache[r.TraceID] = svc
		return cmp.Or(svc, r.Service)
	}
}

// ranked orders the services of score, highest first; ties by more of
// tie (when not nil), then by name. A service scoring 0 is left out.
func ranked(score map[string]float64, tie map[string]int) []string {
	var out []string
	for svc, v := range score {
		if v > 0 && svc != "" {
			out = append(out, svc)
		}
	}
	slices.SortFunc(out, func(a, b string) int {
		return cmp.Or(cmp.Compare(score[b], score[a]), cmp.Compare(tie[b], tie[a]), cmp.Compare(a, b))
	})
	return out
}
