package web

import (
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/faultline/faultline/correlate"
	"github.com/faultline/faultline/schema"
)

// maxRowsParam is the most waterfall rows ?rows= may ask for.
const maxRowsParam = 5000

// traceView is what the trace template renders.
type traceView struct {
	Res        *correlate.Result
	ID         string
	Start      string
	Duration   string
	LogQuery   string
	CLI        string
	Permalink  string
	Cascade    []cascadeStep
	Rows       []traceRow
	Shown      int
	Total      int
	MoreHref   string
	MoreRows   int
	Skewed     int
	RunbookRef string
	// OriginTime is the origin's time on the corrected clock;
	// OriginRawTime its host's, when they differ.
	OriginTime, OriginRawTime string
	// RunbookLabel says what the Runbook button opens: the incident's
	// runbook for this suspect, or the generic one of its kind;
	// RunbookInfo its severity and MTTR target.
	RunbookLabel string
	RunbookInfo  *schema.RunbookRef
	// Incident is the incident's view where it differs from the
	// trace's own (suspectRunbook); nil when they agree or none is known.
	Incident *incidentSuspect
	// IncidentHref links back to the incident window (incidentOfTrace).
	IncidentHref, IncidentLabel string
}

// cascadeStep is one "X failed because of Y" line; Time is on the trace's
// corrected clock, RawTime the host's own when skew moved it.
type cascadeStep struct {
	Service, Class, Message, CausedBy, Time, RawTime string
}

// traceRow is one waterfall row; Gap rows stand for omitted records.
type traceRow struct {
	Gap        int
	Index      int
	Type       string
	Time       string
	Offset     string
	Indent     int
	Service    string
	Severity   string
	Message    string
	Class      string
	Role       string
	SpanID     string
	ParentID   string
	Duration   string
	Skew       string
	BarX, BarW string
	// RawTime, RawOffset, RawBarX and RawBarW place the record by its
	// host's clock, before the clock-skew correction: shown on demand.
	RawTime, RawOffset string
	RawBarX, RawBarW   string
	Attrs              []attr
	IsError            bool
}

// attr is one raw attribute, sorted by key.
type attr struct{ Key, Value string }

// newTraceView builds the view of res, rendering at most maxRows rows
// (origin and cascade rows always included).
func newTraceView(res *correlate.Result, publicURL string, maxRows int) traceView {
	id := string(res.TraceID)
	v := traceView{Res: res, ID: id, Total: len(res.Timeline),
		LogQuery:  fmt.Sprintf(`{service_name=~".+"} |= %q`, id),
		CLI:       "analyze trace " + id,
		Permalink: publicURL + "/trace/" + url.PathEscape(id)}
	v.Start = fmtClock(res.Start)
	if res.Duration > 0 {
		v.Duration = fmtMs(res.Duration)
	}
	adj := newSkewIndex(res.Timeline)
	for _, e := range res.Cascade {
		st := cascadeStep{Service: e.Service, Class: string(e.Class), Message: e.Message, CausedBy: e.CausedBy}
		st.Time, st.RawTime = adj.clocks(e)
		v.Cascade = append(v.Cascade, st)
	}
	if res.Origin != nil {
		v.OriginTime, v.OriginRawTime = adj.clocks(*res.Origin)
	}
	v.setRunbook(res.Runbook)
	v.Rows, v.Shown = traceRows(res, maxRows)
	if v.Total > maxRows && maxRows < maxRowsParam {
		v.MoreRows = min(v.Total, maxRowsParam, maxRows*4)
		v.MoreHref = "/trace/" + url.PathEscape(id) + "?rows=" + strconv.Itoa(v.MoreRows)
	}
	for _, e := range res.Timeline {
		if e.AdjustedMs != 0 {
			v.Skewed++
		}
	}
	return v
}

// setRunbook links the Runbook button to ref: an incident's runbook, or
// the generic one of a kind (its id is the kind word), said so.
func (v *traceView) setRunbook(ref *schema.RunbookRef) {
	v.RunbookRef, v.RunbookLabel, v.RunbookInfo = "", "", nil
	if ref == nil || ref.ID == "" {
		return
	}
	v.RunbookRef, v.RunbookInfo = "/runbooks/"+url.PathEscape(ref.ID), ref
	v.RunbookLabel = "Runbook of the incident"
	if schema.Kind(ref.ID).Valid() {
		v.RunbookLabel = "Generic runbook: " + ref.ID
	}
}

// traceRows keeps the first maxRows entries plus every origin or cascade
// entry after them, with gap rows where records were left out. Offsets
// and bars are on the trace's corrected clock; each row also carries its
// place by its host's raw clock, for the page to show on demand.
func traceRows(res *correlate.Result, maxRows int) ([]traceRow, int) {
	fixed, raw := newBarScale(res.Timeline, correctedAt), newBarScale(res.Timeline, rawAt)
	var rows []traceRow
	shown, gap := 0, 0
	for i, e := range res.Timeline {
		if i >= maxRows && e.Role == "" {
			gap++
			continue
		}
		if gap > 0 {
			rows = append(rows, traceRow{Gap: gap})
			gap = 0
		}
		rows = append(rows, newTraceRow(e, fixed, raw))
		shown++
	}
	if gap > 0 {
		rows = append(rows, traceRow{Gap: gap})
	}
	return rows, shown
}

// skew is an entry's clock-skew correction.
func skew(e correlate.TimelineEntry) time.Duration {
	return time.Duration(e.AdjustedMs * float64(time.Millisecond))
}

// correctedAt is when an entry happened on the trace's clock: its host's
// timestamp moved by the clock-skew correction, as the causal order has it.
func correctedAt(e correlate.TimelineEntry) time.Time { return e.Timestamp.Add(skew(e)) }

// rawAt is the entry's timestamp as its host wrote it.
func rawAt(e correlate.TimelineEntry) time.Time { return e.Timestamp }

// barScale maps times of one clock to the waterfall's 0-100% width: from
// the earliest start to the latest end on that clock.
type barScale struct {
	at   func(correlate.TimelineEntry) time.Time
	lo   time.Time
	span time.Duration
}

func newBarScale(tl []correlate.TimelineEntry, at func(correlate.TimelineEntry) time.Time) barScale {
	var lo, hi time.Time
	for _, e := range tl {
		t := at(e)
		end := t.Add(time.Duration(e.DurationMs * float64(time.Millisecond)))
		if lo.IsZero() || t.Before(lo) {
			lo = t
		}
		if end.After(hi) {
			hi = end
		}
	}
	return barScale{at: at, lo: lo, span: max(hi.Sub(lo), time.Millisecond)}
}

// place is e's offset from the trace's start and its bar's x and width, in
// percent of the waterfall: at least a sliver wide, never past the end.
func (b barScale) place(e correlate.TimelineEntry) (off, x, w string) {
	d := b.at(e).Sub(b.lo)
	xf := min(max(float64(d)/float64(b.span)*100, 0), 99.5)
	wf := e.DurationMs * float64(time.Millisecond) / float64(b.span) * 100
	return "+" + fmtMs(float64(d)/float64(time.Millisecond)), fmtPct(xf), fmtPct(min(max(wf, 0.5), 100-xf))
}

// fmtPct prints a bar coordinate with two decimals: a child's bar must not
// round its way out of its parent's.
func fmtPct(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) + "%" }

func newTraceRow(e correlate.TimelineEntry, fixed, raw barScale) traceRow {
	r := traceRow{Index: e.Index, Type: e.Type, Time: fmtClock(correctedAt(e)), Indent: min(max(e.Depth, 0), 12),
		Service: e.Service, Severity: e.Severity, Message: e.Message, Class: string(e.Class), Role: e.Role,
		SpanID: string(e.SpanID), ParentID: string(e.ParentID)}
	r.IsError = e.Role != "" || e.Severity == "ERROR" || e.Severity == "FATAL"
	if e.DurationMs > 0 {
		r.Duration = fmtMs(e.DurationMs)
	}
	r.Offset, r.BarX, r.BarW = fixed.place(e)
	r.RawOffset, r.RawBarX, r.RawBarW = raw.place(e)
	if e.AdjustedMs != 0 {
		r.Skew = fmt.Sprintf("%+.1f ms clock skew corrected", e.AdjustedMs)
		r.RawTime = fmtClock(e.Timestamp)
	}
	for k, val := range e.Attrs {
		r.Attrs = append(r.Attrs, attr{k, val})
	}
	sort.Slice(r.Attrs, func(i, j int) bool { return r.Attrs[i].Key < r.Attrs[j].Key })
	return r
}

// skewIndex finds the clock-skew correction of an origin or cascade event:
// the timeline entry it was taken from (same service and raw time), else
// any entry of its span.
type skewIndex struct {
	byRecord map[skewKey]time.Duration
	bySpan   map[string]time.Duration
}

type skewKey struct {
	service string
	at      int64
}

func newSkewIndex(tl []correlate.TimelineEntry) skewIndex {
	x := skewIndex{byRecord: map[skewKey]time.Duration{}, bySpan: map[string]time.Duration{}}
	for _, e := range tl {
		x.byRecord[skewKey{e.Service, e.Timestamp.UnixNano()}] = skew(e)
		if e.SpanID != "" {
			x.bySpan[string(e.SpanID)] = skew(e)
		}
	}
	return x
}

// clocks is an event's time on the corrected clock and, when the
// correction moved it, on its host's clock ("" otherwise).
func (x skewIndex) clocks(ev correlate.Event) (fixed, raw string) {
	d, ok := x.byRecord[skewKey{ev.Service, ev.Timestamp.UnixNano()}]
	if !ok {
		d = x.bySpan[string(ev.SpanID)]
	}
	if d == 0 {
		return fmtClock(ev.Timestamp), ""
	}
	return fmtClock(ev.Timestamp.Add(d)), fmtClock(ev.Timestamp)
}

// fmtMs prints milliseconds compactly: 0.8 ms, 42 ms, 3.2 s.
func fmtMs(ms float64) string {
	switch {
	case ms >= 10000:
		return fmt.Sprintf("%.0f s", ms/1000)
	case ms >= 1000:
		return fmt.Sprintf("%.1f s", ms/1000)
	case ms >= 10:
		return fmt.Sprintf("%.0f ms", ms)
	default:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", ms), ".0") + " ms"
	}
}
