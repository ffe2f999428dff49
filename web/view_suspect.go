package web

import (
	"net/url"

	"github.com/faultline/faultline/correlate"
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
}

// newIncidentSuspect compares the incident's candidate (its runbook rb)
// with the trace's suspect (nil: none); nil when they agree.
func newIncidentSuspect(rb *runbookgen.Runbook, sus *correlate.Suspect) *incidentSuspect {
	inc := &incidentSuspect{Service: rb.Service, Kind: rb.Kind, RunbookHref: "/runbooks/" + url.PathEscape(rb.ID)}
	if !rb.From.IsZero() {
		inc.Window = rb.From.UTC().Format("15:04") + "–" + rb.To.UTC().Format("15:04 UTC")
	}
	switch {
	case sus == nil || sus.Service != rb.Service:
		inc.OtherService = true
	case sus.Kind != rb.Kind && rb.Kind != "":
		inc.OtherKind, inc.TraceKind = true, sus.Kind
	default:
		return nil
	}
	return inc
}
