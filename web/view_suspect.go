package web

import (
	"net/url"
	"sync"
	"time"

	"github.com/faultline/faultline/correlate"
	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/runbookgen"
	"github.com/faultline/faultline/schema"
)

// incidentSuspect is the incident's view of a trace, from the runbook it
// wrote for its candidate: the trace page shows it where the trace alone
// sees less. An incident weighs every trace of its window, a trace page
// one: where a caller's breaker was already open, a trace shows only the
// refusal (circuit-open) of a dependency that the incident saw time out
// before, and an incident's example trace may point, on its own, at the
// service in between.
type incidentSuspect struct {
	Service string
	Kind    schema.Kind
	// Window is the incident window the runbook was written for.
	Window string
	// RunbookHref opens the incident's runbook.
	RunbookHref string
	// OtherKind: the incident names the trace's suspect with another
	// kind (the page shows the incident's, and the trace's own beside
	// it). OtherService: it names another service than the trace's
	// suspect (or the trace names none); the page says so and links the
	// incident's runbook beside the trace's.
	OtherKind, OtherService bool
	// TraceKind is the kind the trace's own analysis gives its suspect.
	TraceKind schema.Kind
	// IncidentHref opens the incident, when known from a recent
	// incident page rather than from a runbook; Service is then its top
	// candidate (Top).
	IncidentHref string
	Top          bool
}

// newIncidentSuspect compares the incident's candidate (its runbook rb)
// with the trace's suspect (nil: none): another service, or the same one
// of a kind that says more than the guard the trace met; nil otherwise.
func newIncidentSuspect(rb *runbookgen.Runbook, sus *correlate.Suspect) *incidentSuspect {
	inc := &incidentSuspect{Service: rb.Service, Kind: rb.Kind, RunbookHref: "/runbooks/" + url.PathEscape(rb.ID)}
	if !rb.From.IsZero() {
		inc.Window = rb.From.UTC().Format("15:04") + "–" + rb.To.UTC().Format("15:04 UTC")
	}
	switch {
	case sus == nil || sus.Service != rb.Service:
		inc.OtherService = true
	case sus.Kind != rb.Kind && guardKinds[sus.Kind] && !vagueKinds[rb.Kind]:
		inc.OtherKind, inc.TraceKind = true, sus.Kind
	default:
		return nil
	}
	return inc
}

// guardKinds are what a guard in front of a dependency reports, not the
// dependency's failure: an open breaker, a full bulkhead, retries that
// gave up. A trace that met only the guard knows less than the incident,
// which saw the failures that tripped it.
var guardKinds = map[schema.Kind]bool{schema.KindCircuitOpen: true, schema.KindBulkheadFull: true, schema.KindRetryExhausted: true}

// vagueKinds say less than any kind a trace gives: the incident's kind
// replaces the trace's only when it says more.
var vagueKinds = map[schema.Kind]bool{"": true, schema.KindUnknown: true, schema.KindLogAnomaly: true, schema.KindTransient: true}

// maxRecentIncidents is how many incident pages' reports the server keeps
// for the trace pages (recentIncidents).
const maxRecentIncidents = 8

// recentIncidents are the reports of the incident pages this server
// showed last, unfiltered by service: a trace opened from elsewhere (the
// traces list, a link in a chat) learns from them what the incident
// around it ranks first, when its own analysis points at another service
// and nothing else says so (its suspect has no runbook of the incident).
type recentIncidents struct {
	mu   sync.Mutex
	reps []*rootcause.Report // newest last
}

func (r *recentIncidents) add(rep *rootcause.Report) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, old := range r.reps {
		if old.Window == rep.Window {
			r.reps = append(r.reps[:i], r.reps[i+1:]...)
			break
		}
	}
	r.reps = append(r.reps, rep)
	if len(r.reps) > maxRecentIncidents {
		r.reps = r.reps[len(r.reps)-maxRecentIncidents:]
	}
}

// covering is the newest report whose window holds t and that ranks a
// candidate, or nil.
func (r *recentIncidents) covering(t time.Time) *rootcause.Report {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.reps) - 1; i >= 0; i-- {
		rep := r.reps[i]
		if !t.Before(rep.Window.From) && t.Before(rep.Window.To) && len(rep.Candidates) > 0 && rep.Candidates[0].Service != "" {
			return rep
		}
	}
	return nil
}

// recentIncidentSuspect is the incident's view of a trace from a recent
// incident page around it: its top candidate, when the trace's own
// analysis names another service (nil otherwise).
func recentIncidentSuspect(rep *rootcause.Report, sus *correlate.Suspect) *incidentSuspect {
	if rep == nil || sus == nil {
		return nil
	}
	top := rep.Candidates[0]
	if top.Service == sus.Service {
		return nil
	}
	q := url.Values{"from": {rep.Window.From.UTC().Format(time.RFC3339)}, "to": {rep.Window.To.UTC().Format(time.RFC3339)}}
	return &incidentSuspect{Service: top.Service, Kind: top.Kind, RunbookHref: runbookHref(top), OtherService: true, Top: true,
		Window:       rep.Window.From.UTC().Format("15:04") + "–" + rep.Window.To.UTC().Format("15:04 UTC"),
		IncidentHref: "/incident?" + q.Encode()}
}
