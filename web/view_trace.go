package web

import (
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/faultline/faultline/correlate"
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
}

// cascadeStep is one "X failed because of Y" line.
type cascadeStep struct {
	Service, Class, Message, CausedBy, Time string
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
	Attrs      []attr
	IsError    bool
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
	for _, e := range res.Cascade {
		v.Cascade = append(v.Cascade, cascadeStep{Service: e.Service, Class: string(e.Class), Message: e.Message, CausedBy: e.CausedBy, Time: fmtClock(e.Timestamp)})
	}
	if res.Runbook != nil && res.Runbook.ID != "" {
		v.RunbookRef = "/runbooks/" + url.PathEscape(res.Runbook.ID)
	}
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

// traceRows keeps the first maxRows entries plus every origin or cascade
// entry after them, with gap rows where records were left out.
func traceRows(res *correlate.Result, maxRows int) ([]traceRow, int) {
	start, span := timelineSpan(res)
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
		rows = append(rows, newTraceRow(e, start, span))
		shown++
	}
	if gap > 0 {
		rows = append(rows, traceRow{Gap: gap})
	}
	return rows, shown
}

// timelineSpan is the earliest time and the length of the trace, for bars.
func timelineSpan(res *correlate.Result) (time.Time, time.Duration) {
	var lo, hi time.Time
	for _, e := range res.Timeline {
		end := e.Timestamp.Add(time.Duration(e.DurationMs * float64(time.Millisecond)))
		if lo.IsZero() || e.Timestamp.Before(lo) {
			lo = e.Timestamp
		}
		if end.After(hi) {
			hi = end
		}
	}
	return lo, max(hi.Sub(lo), time.Millisecond)
}

func newTraceRow(e correlate.TimelineEntry, start time.Time, span time.Duration) traceRow {
	r := traceRow{Index: e.Index, Type: e.Type, Time: fmtClock(e.Timestamp), Indent: min(max(e.Depth, 0), 12),
		Service: e.Service, Severity: e.Severity, Message: e.Message, Class: string(e.Class), Role: e.Role,
		SpanID: string(e.SpanID), ParentID: string(e.ParentID)}
	r.IsError = e.Role != "" || e.Severity == "ERROR" || e.Severity == "FATAL"
	off := e.Timestamp.Sub(start)
	r.Offset = "+" + fmtMs(float64(off)/float64(time.Millisecond))
	if e.DurationMs > 0 {
		r.Duration = fmtMs(e.DurationMs)
	}
	if e.AdjustedMs != 0 {
		r.Skew = fmt.Sprintf("%+.0f ms clock skew corrected", e.AdjustedMs)
	}
	x := float64(off) / float64(span) * 100
	w := e.DurationMs * float64(time.Millisecond) / float64(span) * 100
	r.BarX, r.BarW = fmtFloat(min(max(x, 0), 99.5))+"%", fmtFloat(min(max(w, 0.5), 100-min(x, 99.5)))+"%"
	for k, val := range e.Attrs {
		r.Attrs = append(r.Attrs, attr{k, val})
	}
	sort.Slice(r.Attrs, func(i, j int) bool { return r.Attrs[i].Key < r.Attrs[j].Key })
	return r
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
