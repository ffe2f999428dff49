package web

import (
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/runbookgen"
)

// incidentView is what the incident template renders.
type incidentView struct {
	Report      *rootcause.Report
	WindowLabel string
	Since       string
	FromValue   string // datetime-local values for the custom picker
	ToValue     string
	Service     string
	Presets     []preset
	Candidates  []candidateView
	Hidden      int // candidates not rendered (over the cap)
	ServiceList []string
	Timeline    timelineView
	Graph       graphView
	Empty       string // "no-data", "healthy" or ""
	APIURL      string
	RefreshSec  int
	// TracesURL lists the window's traces (/traces), with its service;
	// FailingURL its failing ones. SilentService is the service filter
	// when that service leaves no records of its own (tracesURLs).
	TracesURL, FailingURL, SilentService string
	// Note says why the default window is shorter than usual;
	// BaselineLabel what the baseline held.
	Note, BaselineLabel string
	// NewestHref opens the store's newest records when the window holds
	// none because they end before it (newestWindow).
	NewestHref, NewestLabel string
}

// preset is one quick window choice.
type preset struct {
	Label, Href string
	Active      bool
}

// candidateView is one candidate with its links and display values.
type candidateView struct {
	rootcause.Candidate
	// Explained is the candidate's headline, the share of the window's
	// anomalous requests it explains ("explains 92%", "symptoms only";
	// runbookgen.ExplainedWords), and ExplainedPct its bar's width: never
	// above 100, where Score, which ranks, may exceed 1.
	Explained    string
	ExplainedPct int
	RunbookHref  string
	FirstSeen    string
	Examples     []traceLink
	Open         bool
}

// traceLink links one example trace.
type traceLink struct {
	ID, Short, Href string
}

// newIncidentView builds the view of rep for the window in.
func newIncidentView(rep *rootcause.Report, in windowInput, cfg Config) incidentView {
	v := incidentView{
		Report: rep, Since: in.Since, Service: in.Query.Service,
		FromValue: in.Query.From.UTC().Format("2006-01-02T15:04"), ToValue: in.Query.To.UTC().Format("2006-01-02T15:04"),
		APIURL: "/api/v1/incident?" + incidentQueryString(in), RefreshSec: int(cfg.RefreshInterval / time.Second),
	}
	v.WindowLabel = windowLabel(rep.Window, in.Since)
	v.Note, v.BaselineLabel = in.Note, baselineLabel(rep)
	v.TracesURL, v.FailingURL, v.SilentService = tracesURLs(rep, in)
	v.Presets = presets(in)
	v.Candidates, v.Hidden = candidateViews(rep.Candidates, cfg.MaxCandidates)
	roles := serviceRoles(rep)
	v.Timeline = newTimelineView(rep, roles, cfg.MaxServices)
	v.Graph = newGraphView(rep, roles, cfg.MaxServices)
	for _, s := range rep.Services {
		v.ServiceList = append(v.ServiceList, s.Service)
	}
	switch {
	case rep.Traces == 0 && len(rep.Candidates) == 0 && totalRecords(rep) == 0:
		v.Empty = "no-data"
	case rep.FailedTraces == 0 && len(rep.Candidates) == 0:
		v.Empty = "healthy"
	}
	return v
}

// tracesURLs link the window's traces and its failing ones, narrowed to
// the page's service. A service that leaves no records of its own (a
// third-party API) is in no trace's list of services, so the links list
// every trace of the window and open at its chart, drawn from its
// callers' calls to it; silent is then its name.
func tracesURLs(rep *rootcause.Report, in windowInput) (all, failing, silent string) {
	w := windowInput{Since: in.Since, Query: IncidentQuery{From: in.Query.From, To: in.Query.To, Service: in.Query.Service}}
	anchor := ""
	if svc := in.Query.Service; svc != "" && leavesNoRecords(rep, svc) {
		w.Query.Service, anchor, silent = "", "#svc-"+url.PathEscape(svc), svc
	}
	q := incidentQueryString(w)
	return "/traces?" + q + anchor, "/traces?" + q + "&errors=1" + anchor, silent
}

// leavesNoRecords says whether svc is in rep only through others: a
// summary without records, or a candidate without a summary.
func leavesNoRecords(rep *rootcause.Report, svc string) bool {
	for _, s := range rep.Services {
		if s.Service == svc {
			return s.Records == 0
		}
	}
	for _, c := range rep.Candidates {
		if c.Service == svc {
			return true
		}
	}
	return false
}

// baselineLabel says what the window was compared with: the baseline's
// span, its minutes of data and records, or that there was none.
func baselineLabel(rep *rootcause.Report) string {
	b, d := rep.Baseline, rep.BaselineData
	if b == nil {
		return "Baseline: none, the store holds nothing around the window to compare it with; every candidate's evidence is weighed as weak."
	}
	from := b.From.UTC().Format("15:04")
	if b.From.UTC().YearDay() != b.To.UTC().YearDay() {
		from = b.From.UTC().Format("Jan 2 15:04")
	}
	s := "Baseline: " + from + " – " + b.To.UTC().Format("15:04") + " UTC"
	if d != nil {
		unit := " records"
		if d.Records == 1 {
			unit = " record"
		}
		s += ", " + fmtMinutes(d.Minutes) + " of data, " + fmtInt(d.Records) + unit
		if d.Thin {
			s += " (thin: fewer minutes of data than the window)"
		}
	}
	return s + "."
}

// fmtMinutes prints minutes of data: "1 minute", "2.5 minutes", "15 minutes".
func fmtMinutes(m float64) string {
	s := strconv.FormatFloat(math.Round(m*10)/10, 'f', -1, 64)
	if s == "1" {
		return "1 minute"
	}
	return s + " minutes"
}

func totalRecords(rep *rootcause.Report) int {
	n := 0
	for _, s := range rep.Services {
		n += s.Records
	}
	return n
}

// incidentQueryString re-encodes the window so the page's script asks the
// API for the same thing.
func incidentQueryString(in windowInput) string {
	q := url.Values{}
	if in.Since != "" {
		q.Set("since", in.Since)
	} else {
		q.Set("from", in.Query.From.UTC().Format(time.RFC3339))
		q.Set("to", in.Query.To.UTC().Format(time.RFC3339))
	}
	if in.Query.Service != "" {
		q.Set("service", in.Query.Service)
	}
	return q.Encode()
}

func presets(in windowInput) []preset {
	var out []preset
	for _, p := range [...]struct{ label, since string }{{"Last 15 min", "15m"}, {"Last 30 min", "30m"}, {"Last 1 h", "1h"}, {"Last 6 h", "6h"}} {
		q := url.Values{"since": {p.since}}
		if in.Query.Service != "" {
			q.Set("service", in.Query.Service)
		}
		out = append(out, preset{Label: p.label, Href: "/incident?" + q.Encode(), Active: in.Since == p.since})
	}
	return out
}

func windowLabel(w rootcause.Window, since string) string {
	span := w.From.UTC().Format("Jan 2 15:04:05") + " – " + w.To.UTC().Format("15:04:05") + " UTC"
	if w.To.Sub(w.From) >= 24*time.Hour {
		span = w.From.UTC().Format("Jan 2 15:04") + " – " + w.To.UTC().Format("Jan 2 15:04") + " UTC"
	}
	if since != "" {
		if d, err := parseSince(since); err == nil {
			return "last " + fmtDuration(d) + " (" + span + ")"
		}
	}
	return span
}

func candidateViews(cs []rootcause.Candidate, max int) ([]candidateView, int) {
	hidden := 0
	if len(cs) > max {
		hidden, cs = len(cs)-max, cs[:max]
	}
	out := make([]candidateView, len(cs))
	for i, c := range cs {
		if c.Service == "" {
			c.Service = "(unknown service)"
		}
		out[i] = candidateView{
			Candidate: c, Explained: runbookgen.ExplainedWords(&c),
			RunbookHref: runbookHref(c), FirstSeen: fmtClock(c.FirstSeen), Open: i == 0,
		}
		out[i].ExplainedPct, _ = runbookgen.Explained(&c)
		for j, id := range c.ExampleTraces {
			if j == 5 {
				break
			}
			href := "/trace/" + url.PathEscape(string(id))
			if c.Runbook != nil && c.Runbook.ID != "" {
				// The trace page's Runbook button then opens this
				// incident's runbook, when the trace's suspect is c's.
				href += "?runbook=" + url.QueryEscape(c.Runbook.ID)
			}
			out[i].Examples = append(out[i].Examples, traceLink{ID: string(id), Short: id.Short(), Href: href})
		}
	}
	return out, hidden
}

// runbookHref links a candidate's runbook by id, never by a URL taken from
// the document, so it always stays on this site.
func runbookHref(c rootcause.Candidate) string {
	if c.Runbook != nil && c.Runbook.ID != "" {
		return "/runbooks/" + url.PathEscape(c.Runbook.ID)
	}
	if c.ID != "" {
		return "/runbooks/" + url.PathEscape(c.ID)
	}
	return ""
}

func clamp01(f float64) float64 {
	if math.IsNaN(f) || f < 0 {
		return 0
	}
	return math.Min(f, 1)
}

func fmtClock(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("15:04:05.000") + " UTC"
}

// serviceRoles gives each service its role: "origin", "cascade" or
// "healthy", from the report's summaries, falling back on the top candidate.
func serviceRoles(rep *rootcause.Report) map[string]string {
	roles := map[string]string{}
	for _, s := range rep.Services {
		switch {
		case s.Role != "":
			roles[s.Service] = s.Role
		case s.Errors > 0:
			roles[s.Service] = "cascade"
		default:
			roles[s.Service] = "healthy"
		}
	}
	hasOrigin := false
	for _, r := range roles {
		hasOrigin = hasOrigin || r == "origin"
	}
	if !hasOrigin && len(rep.Candidates) > 0 {
		roles[rep.Candidates[0].Service] = "origin"
	}
	return roles
}

// roleLabel is the word shown beside a service so the role never depends on colour.
func roleLabel(role string) string {
	switch role {
	case "origin":
		return "ORIGIN"
	case "cascade":
		return "cascade"
	default:
		return "healthy"
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// fmtInt groups thousands: 18342 -> 18,342.
func fmtInt(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// serviceHref links to the same window narrowed to one service.
func serviceHref(w rootcause.Window, service string) string {
	q := url.Values{"service": {service}}
	if !w.From.IsZero() {
		q.Set("from", w.From.UTC().Format(time.RFC3339))
		q.Set("to", w.To.UTC().Format(time.RFC3339))
	}
	return "/incident?" + q.Encode()
}
