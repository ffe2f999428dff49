package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/faultline/faultline/analysis"
	"github.com/faultline/faultline/internal/cli"
	"github.com/gin-gonic/gin"
)

// TraceLister is a Backend that also lists a window's traces and charts
// its services: /traces and /api/v1/traces. Without it those answer 404.
type TraceLister interface {
	Traces(ctx context.Context, q analysis.TracesQuery) (*analysis.TraceList, error)
}

// StoreNamer is a Backend that names its store as a command line gives it
// (" --store ARG", runbookgen.StoreFlag), for the commands the pages show
// to copy to run as shown.
type StoreNamer interface {
	StoreFlag() string
}

// Chart geometry, in SVG user units: one unit per bucket across,
// chartPlot units up.
const chartPlot = 20

// maxOperation caps the operation filter's length.
const maxOperation = 200

// tracesKey is a trace list's key in the analysis pool: the same query
// shares one scan.
type tracesKey struct {
	From, To           int64
	Service, Operation string
	MinDuration        time.Duration
	Errors             bool
	Limit              int
}

// tracesInput is the trace list's query as the request gave it.
type tracesInput struct {
	Window windowInput
	Query  analysis.TracesQuery
	Min    string // the min duration as typed
}

// parseTracesQuery reads the window and service as /incident does, then
// operation, min (a duration), errors and rows.
func parseTracesQuery(v url.Values, now time.Time, maxWindow time.Duration) (tracesInput, error) {
	var in tracesInput
	w, err := parseIncidentQuery(url.Values{"since": {v.Get("since")}, "from": {v.Get("from")}, "to": {v.Get("to")},
		"service": {v.Get("service")}}, now, maxWindow)
	if err != nil {
		return in, err
	}
	in.Window = w
	q := analysis.TracesQuery{From: w.Query.From, To: w.Query.To, Service: w.Query.Service}
	q.Operation = strings.TrimSpace(v.Get("operation"))
	if len(q.Operation) > maxOperation || strings.ContainsFunc(q.Operation, func(r rune) bool { return r < ' ' }) {
		return in, fmt.Errorf("%w: operation must be at most %d characters of text", ErrBadInput, maxOperation)
	}
	if in.Min = strings.TrimSpace(v.Get("min")); in.Min != "" {
		d, err := cli.ParseDuration(in.Min, cli.MaxDuration)
		if err != nil {
			return in, fmt.Errorf("%w: %s", ErrBadInput, cli.DurationError("min", in.Min, err, cli.MaxDuration))
		}
		q.MinDuration = d
	}
	switch e := v.Get("errors"); e {
	case "", "0", "false", "off":
	case "1", "true", "on":
		q.Errors = true
	default:
		return in, fmt.Errorf("%w: errors is 1 or 0, not %q", ErrBadInput, truncate(e, 20))
	}
	if r := v.Get("rows"); r != "" {
		n, err := strconv.Atoi(r)
		if err != nil || n < 1 || n > analysis.MaxTraceRows {
			return in, fmt.Errorf("%w: rows is a number from 1 to %d", ErrBadInput, analysis.MaxTraceRows)
		}
		q.Limit = n
	}
	in.Query = q
	return in, nil
}

// traces answers a trace list through the analysis pool.
func (s *server) traces(c *gin.Context) (*analysis.TraceList, tracesInput, error) {
	tl, ok := s.backend.(TraceLister)
	if !ok {
		return nil, tracesInput{}, errNoTraceList
	}
	now := s.cfg.Now().UTC()
	if s.cfg.CacheTTL > 0 {
		now = now.Truncate(s.cfg.CacheTTL)
	}
	qv, note := s.withDefaultWindow(c.Request.Context(), c.Request.URL.Query(), now)
	in, err := parseTracesQuery(qv, now, s.cfg.MaxWindow)
	if err != nil {
		return nil, in, err
	}
	in.Window.Note = note
	q := in.Query
	key := tracesKey{q.From.UnixNano(), q.To.UnixNano(), q.Service, q.Operation, q.MinDuration, q.Errors, q.Limit}
	v, err := s.pool.do(c.Request.Context(), key, s.cfg.RequestTimeout, func(actx context.Context) (any, error) {
		return tl.Traces(actx, q)
	})
	if errors.Is(err, errPanic) {
		s.log.Error("panic listing traces", "panic", err.Error())
		return nil, in, errPanic
	}
	list, _ := v.(*analysis.TraceList)
	if err == nil && list == nil {
		err = errNilDocument
	}
	return list, in, err
}

// errNoTraceList: the backend cannot list traces.
var errNoTraceList = errors.New("this server cannot list traces")

// tracesPage serves GET /traces.
func (s *server) tracesPage(c *gin.Context) {
	list, in, err := s.traces(c)
	if errors.Is(err, errNoTraceList) {
		s.failNotFound(c, "this server lists no traces; open one by id at /trace")
		return
	}
	if err != nil {
		s.fail(c, err)
		return
	}
	s.render(c, http.StatusOK, "traces", "Traces", newTracesView(list, in))
}

// apiTraces serves GET /api/v1/traces.
func (s *server) apiTraces(c *gin.Context) {
	list, _, err := s.traces(c)
	if errors.Is(err, errNoTraceList) {
		s.failNotFound(c, "this server lists no traces")
		return
	}
	if err != nil {
		s.fail(c, err)
		return
	}
	c.Header("Cache-Control", "no-store")
	c.JSON(http.StatusOK, list)
}

// tracesView is what the traces template renders.
type tracesView struct {
	List        *analysis.TraceList
	WindowLabel string
	Since       string
	FromValue   string
	ToValue     string
	Service     string
	Operation   string
	Min         string
	Errors      bool
	Services    []serviceChart
	ServiceList []string
	Rows        []traceListRow
	IncidentURL string
	BucketLabel string
	// Note says why the default window is shorter than usual.
	Note string
	// BandLabel says where the shaded bands come from: the stretch as
	// long as the window just before it, not the incident page's
	// baseline (rootcause's, up to an hour).
	BandLabel string
}

// traceListRow is one row of the list.
type traceListRow struct {
	Href, ID, Short, Start, Duration, Service, Operation, Origin, Class string
	Failed                                                              bool
	Services                                                            int
}

// serviceChart is one service's three small charts.
type serviceChart struct {
	Service, Href    string
	Requests, Errors int
	ErrRate, P95     string
	Req, Err, Lat    chart
	Onset            string
	OnsetX           string
	Deploys          []deployMark
	NoBaseline       bool
}

// chart is one series: bars scaled to its peak (or the band's top),
// the baseline's band as a rectangle, the peak as a label.
type chart struct {
	Bars         string
	BandY, BandH string
	HasBand      bool
	Peak         string
}

type deployMark struct{ X, Label string }

func newTracesView(l *analysis.TraceList, in tracesInput) tracesView {
	q := in.Query
	v := tracesView{List: l, Since: in.Window.Since, Service: q.Service, Operation: q.Operation, Min: in.Min, Errors: q.Errors, Note: in.Window.Note,
		WindowLabel: fmtClock(l.Window.From) + " → " + fmtClock(l.Window.To),
		FromValue:   l.Window.From.UTC().Format("2006-01-02T15:04:05"), ToValue: l.Window.To.UTC().Format("2006-01-02T15:04:05"),
		BucketLabel: fmtDuration(time.Duration(l.BucketSec * float64(time.Second)).Round(time.Second))}
	iq := url.Values{"from": {l.Window.From.UTC().Format(time.RFC3339)}, "to": {l.Window.To.UTC().Format(time.RFC3339)}}
	if q.Service != "" {
		iq.Set("service", q.Service)
	}
	v.IncidentURL = "/incident?" + iq.Encode()
	v.BandLabel = "the usual range of the " + fmtDuration(l.Window.To.Sub(l.Window.From)) + " before the window"
	if b := l.Baseline; b != nil {
		v.BandLabel += " (" + b.From.UTC().Format("15:04") + "–" + b.To.UTC().Format("15:04") + ")"
	} else {
		v.BandLabel += ", which holds nothing: no band"
	}
	for _, st := range l.Services {
		v.ServiceList = append(v.ServiceList, st.Service)
		v.Services = append(v.Services, newServiceChart(st, l, in))
	}
	for _, r := range l.Rows {
		row := traceListRow{Href: "/trace/" + url.PathEscape(string(r.TraceID)), ID: string(r.TraceID), Short: r.TraceID.Short(),
			Start: fmtClock(r.Start), Duration: fmtMs(r.DurationMs), Service: r.Service, Operation: r.Operation,
			Failed: r.Failed, Services: len(r.Services)}
		if r.Origin != nil {
			row.Origin, row.Class = r.Origin.Service+": "+truncate(r.Origin.Message, 160), string(r.Origin.Class)
		}
		v.Rows = append(v.Rows, row)
	}
	return v
}

func newServiceChart(st analysis.ServiceStats, l *analysis.TraceList, in tracesInput) serviceChart {
	q := url.Values{"service": {st.Service}, "from": {l.Window.From.UTC().Format(time.RFC3339)}, "to": {l.Window.To.UTC().Format(time.RFC3339)}}
	if in.Query.Errors {
		q.Set("errors", "1")
	}
	sc := serviceChart{Service: st.Service, Href: "/traces?" + q.Encode(), NoBaseline: st.Band == nil}
	n := len(st.Requests)
	rates := make([]float64, n)
	reqs := make([]float64, n)
	var lat float64
	for i := range st.Requests {
		sc.Requests += st.Requests[i]
		sc.Errors += st.Errors[i]
		reqs[i] = float64(st.Requests[i])
		if st.Requests[i] > 0 {
			rates[i] = float64(st.Errors[i]) / float64(st.Requests[i])
		}
		lat = max(lat, st.P95Ms[i])
	}
	if sc.Requests > 0 {
		sc.ErrRate = fmt.Sprintf("%.1f%%", float64(sc.Errors)/float64(sc.Requests)*100)
	}
	if lat > 0 {
		sc.P95 = fmtMs(lat)
	}
	var b analysis.Band
	if st.Band != nil {
		b = *st.Band
	}
	perSec := func(f float64) string { return fmt.Sprintf("%.2f/s", f/max(l.BucketSec, 1e-9)) }
	sc.Req = newChart(reqs, b.ReqLo, b.ReqHi, st.Band != nil, perSec)
	sc.Err = newChart(rates, b.ErrLo, b.ErrHi, st.Band != nil, func(f float64) string { return fmt.Sprintf("%.0f%%", f*100) })
	sc.Lat = newChart(st.P95Ms, b.P95Lo, b.P95Hi, b.HasP95, fmtMs)
	span := l.Window.To.Sub(l.Window.From)
	x := func(t time.Time) string {
		return fmtFloat(min(max(float64(t.Sub(l.Window.From))/float64(span)*float64(n), 0), float64(n)))
	}
	if !st.Onset.IsZero() {
		sc.Onset, sc.OnsetX = "left its baseline at "+st.Onset.UTC().Format("15:04:05"), x(st.Onset)
	}
	for _, d := range st.Deploys {
		sc.Deploys = append(sc.Deploys, deployMark{X: x(d.At), Label: "version " + truncate(d.Version, 40) + " first seen " + d.At.UTC().Format("15:04:05")})
	}
	return sc
}

// newChart draws xs as bars from y = chartPlot up, scaled to the larger of
// their peak and the band's top, with the band behind them.
func newChart(xs []float64, lo, hi float64, band bool, label func(float64) string) chart {
	top := 0.0
	for _, x := range xs {
		top = max(top, x)
	}
	peak := top
	if band {
		top = max(top, hi)
	}
	c := chart{Peak: label(peak)}
	if top <= 0 {
		return c
	}
	y := func(v float64) float64 { return chartPlot - v/top*chartPlot }
	if band && hi > 0 {
		c.HasBand = true
		c.BandY, c.BandH = fmtFloat(y(hi)), fmtFloat(max(y(lo)-y(hi), 0.3))
	}
	var sb strings.Builder
	for i, x := range xs {
		if x <= 0 {
			continue
		}
		h := max(x/top*chartPlot, 0.6)
		fmt.Fprintf(&sb, "M%d %dv-%sh.8v%sz", i, chartPlot, fmtFloat(h), fmtFloat(h))
	}
	c.Bars = sb.String()
	return c
}
