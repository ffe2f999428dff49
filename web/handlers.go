package web

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/faultline/faultline/correlate"
	"github.com/faultline/faultline/runbookgen"
	"github.com/faultline/faultline/schema"
	"github.com/gin-gonic/gin"
)

// incidentPage serves GET /incident.
func (s *server) incidentPage(c *gin.Context) {
	rep, in, err := s.incident(c, s.cfg.MaxAPICandidates)
	if err != nil {
		s.fail(c, err)
		return
	}
	title := "Incident"
	if in.Query.Service != "" {
		title += " · " + in.Query.Service
	}
	if in.Query.Service == "" {
		s.recent.add(rep)
	}
	v := newIncidentView(rep, in, s.cfg)
	v.Graph.addTimes(s.edgeTimes(c.Request.Context(), rep))
	if v.Empty == "no-data" {
		v.NewestHref, v.NewestLabel = s.newestWindow(c.Request.Context(), in.Query)
	}
	s.render(c, http.StatusOK, "incident", title, v)
}

// searchView is the trace search page (also the answer to a bad or unknown id).
type searchView struct {
	Query   string
	Message string
}

// traceSearch serves GET /trace?id=…: a redirect to the trace's stable URL.
func (s *server) traceSearch(c *gin.Context) {
	q := strings.TrimSpace(c.Query("id"))
	if q == "" {
		s.render(c, http.StatusOK, "search", "Find a trace", searchView{})
		return
	}
	id, err := parseTraceID(q)
	if err != nil {
		s.render(c, http.StatusBadRequest, "search", "Find a trace", searchView{Query: q, Message: classify(err).message})
		return
	}
	c.Redirect(http.StatusFound, "/trace/"+url.PathEscape(string(id)))
}

// tracePage serves GET /trace/ID.
func (s *server) tracePage(c *gin.Context) {
	res, err := s.trace(c)
	switch {
	case errors.Is(err, ErrBadInput):
		s.render(c, http.StatusBadRequest, "search", "Find a trace", searchView{Query: c.Param("id"), Message: classify(err).message})
		return
	case errors.Is(err, schema.ErrNotFound):
		s.render(c, http.StatusNotFound, "search", "Trace not found", searchView{Query: c.Param("id"),
			Message: "No records for this trace id. It may be outside retention, not ingested yet, or mistyped."})
		return
	case err != nil:
		s.fail(c, err)
		return
	}
	rows := s.cfg.MaxTimelineRows
	if n, err := strconv.Atoi(c.Query("rows")); err == nil && n > 0 {
		rows = min(n, max(maxRowsParam, rows))
	}
	v := newTraceView(res, s.cfg.PublicURL, rows)
	ref, inc := s.suspectRunbook(c, res)
	v.setRunbook(ref)
	if v.RunbookLabel == "Runbook of the incident" && res.Suspect != nil && res.Suspect.Service != "" {
		v.RunbookLabel += " for " + correlate.ShownService(res.Suspect.Service)
	}
	v.IncidentHref, v.IncidentLabel = s.incidentOfTrace(c, res, ref)
	if inc == nil {
		// Nothing from the incident's runbook (none for the suspect, or
		// one of a low-ranked candidate of the same service): a recent
		// incident page around the trace may rank another service first.
		if inc = recentIncidentSuspect(s.recent.covering(res.Start), res.Suspect); inc != nil {
			v.IncidentHref, v.IncidentLabel = inc.IncidentHref, "The incident ("+inc.Window+")"
		}
	}
	v.Incident = inc
	if sn, ok := s.backend.(StoreNamer); ok {
		v.CLI = "analyze trace" + sn.StoreFlag() + " " + v.ID
	}
	s.render(c, http.StatusOK, "trace", "Trace "+res.TraceID.Short(), v)
}

// suspectRunbook is the runbook the trace page's button opens: the one
// ?runbook= names (the incident page's link to this trace) when it was
// written for the trace's suspect, else the one the analysis linked (the
// latest incident's runbook of the suspect, or its kind's generic one).
// The incident's runbook is also its view of the trace (incidentSuspect).
func (s *server) suspectRunbook(c *gin.Context, res *correlate.Result) (*schema.RunbookRef, *incidentSuspect) {
	if q := c.Query("runbook"); q != "" {
		if rb, err := s.runbook(c, q); err == nil && !rb.Generic {
			if res.Suspect != nil && rb.Service == res.Suspect.Service {
				return rb.Ref(), newIncidentSuspect(rb, res.Suspect)
			}
			return res.Runbook, newIncidentSuspect(rb, res.Suspect)
		}
	}
	if ref := res.Runbook; ref != nil && res.Suspect != nil && !schema.Kind(ref.ID).Valid() {
		if rb, err := s.runbook(c, ref.ID); err == nil && !rb.Generic && rb.Service == res.Suspect.Service {
			return ref, newIncidentSuspect(rb, res.Suspect)
		}
	}
	return res.Runbook, nil
}

// aroundTrace is the incident window the trace page links when it knows
// no incident's: this much before and after the trace's start.
const aroundTrace = 15 * time.Minute

// incidentOfTrace links the trace page back to an incident: the window
// of the incident's runbook its button opens, else the half hour around
// the trace.
func (s *server) incidentOfTrace(c *gin.Context, res *correlate.Result, ref *schema.RunbookRef) (href, label string) {
	if ref != nil && !schema.Kind(ref.ID).Valid() {
		if rb, err := s.runbook(c, ref.ID); err == nil && !rb.From.IsZero() && rb.To.After(rb.From) {
			q := url.Values{"from": {rb.From.UTC().Format(time.RFC3339)}, "to": {rb.To.UTC().Format(time.RFC3339)}}
			return "/incident?" + q.Encode(), "The incident (" + rb.From.UTC().Format("15:04") + "–" + rb.To.UTC().Format("15:04 UTC") + ")"
		}
	}
	if res.Start.IsZero() {
		return "", ""
	}
	from := res.Start.Add(-aroundTrace).Truncate(time.Minute)
	to := res.Start.Add(aroundTrace).Truncate(time.Minute).Add(time.Minute)
	q := url.Values{"from": {from.UTC().Format(time.RFC3339)}, "to": {to.UTC().Format(time.RFC3339)}}
	return "/incident?" + q.Encode(), "The incident window around it (" + from.UTC().Format("15:04") + "–" + to.UTC().Format("15:04 UTC") + ")"
}

// runbookView is what the runbook page renders.
type runbookView struct {
	RB      *runbookgen.Runbook
	Blocks  []mdBlock
	RawHref string
	// AlertHref is the runbook_url an alert carried: shown as a link from
	// the alert, with its host, never as one of ours.
	AlertHref, AlertHost string
	// A candidate's runbook: Version is this text's own link, LatestHref
	// the candidate's (which follows the latest analysis), Latest whether
	// the page was opened by the latter, Window the incident window.
	Version, LatestHref, Window string
	Latest                      bool
	// SaysSeverity: the text opens with its severity and why (the
	// built-in runbooks' "**Severity P1 — …"), so the header does not
	// repeat the reason; a team template that leaves it out gets it there.
	SaysSeverity bool
}

// saysSeverity reports whether a runbook's text states its severity in a
// paragraph of its own, as the built-in layout writes it ("**Severity P1 —
// MTTR target 15m.** P1 because …", "**Severity P2** (MTTR target 1h). …").
func saysSeverity(rb *runbookgen.Runbook) bool {
	if rb.Severity == "" {
		return false
	}
	for line := range strings.SplitSeq(rb.Markdown, "\n") {
		if strings.HasPrefix(line, "**Severity "+string(rb.Severity)) {
			return true
		}
	}
	return false
}

// runbookPage serves GET /runbooks/ID and, for ID.md, the raw Markdown.
func (s *server) runbookPage(c *gin.Context) {
	raw := c.Param("id")
	id, isMD := strings.CutSuffix(raw, ".md")
	rb, err := s.runbook(c, id)
	if err != nil {
		if errors.Is(err, schema.ErrNotFound) {
			s.failNotFound(c, "no runbook with this id; runbook ids come from the incident page's candidates, or are a failure kind such as timeout")
			return
		}
		s.fail(c, err)
		return
	}
	if isMD {
		c.Header("Content-Disposition", "inline")
		c.Data(http.StatusOK, "text/markdown; charset=utf-8", []byte(rb.Markdown))
		return
	}
	v := runbookView{RB: rb, Blocks: parseMarkdown(withoutAlertLink(rb)), RawHref: "/runbooks/" + url.PathEscape(rb.ID) + ".md",
		AlertHref: safeHref(rb.AlertRunbookURL), SaysSeverity: saysSeverity(rb)}
	if u, err := url.Parse(v.AlertHref); err == nil && v.AlertHref != "" {
		v.AlertHost = u.Host
	}
	if rb.ID == "" {
		v.RawHref = "/runbooks/" + url.PathEscape(id) + ".md"
	}
	if rb.CandidateID != "" && rb.ID != "" && !rb.Generic {
		v.Version, v.LatestHref = "/runbooks/"+url.PathEscape(rb.ID), "/runbooks/"+url.PathEscape(rb.CandidateID)
		v.Latest = id != rb.ID
		if !rb.From.IsZero() {
			v.Window = rb.From.UTC().Format("2006-01-02 15:04") + "–" + rb.To.UTC().Format("15:04 UTC")
		}
	}
	title := rb.Title
	if title == "" {
		title = "Runbook " + id
	}
	s.render(c, http.StatusOK, "runbook", title, v)
}

// alertLinkLine starts the line runbookgen.LinkAlertRunbook adds to the
// Markdown for an alert's runbook_url.
const alertLinkLine = "**Runbook named by the alert rule:** "

// withoutAlertLink is the runbook's Markdown for the page: the line that
// links an alert's runbook_url goes, as the page shows that link apart,
// marked as coming from the alert (the raw .md keeps it).
func withoutAlertLink(rb *runbookgen.Runbook) string {
	if rb.AlertRunbookURL == "" || !strings.Contains(rb.Markdown, alertLinkLine) {
		return rb.Markdown
	}
	lines := strings.Split(rb.Markdown, "\n")
	kept := lines[:0]
	for _, l := range lines {
		if !strings.HasPrefix(l, alertLinkLine) {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n")
}
