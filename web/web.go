// Package web serves faultline's user interface and JSON API: the incident
// page (ranked root-cause candidates, error timelines, the dependency graph),
// the trace page (a causal waterfall with origin and cascade), the runbook
// page, and the /api/v1 documents behind them. Pages are rendered on the
// server with html/template; scripts, styles and templates are embedded, so
// the binary needs no network and no front-end build.
//
// The analysis itself is behind Backend, an interface this package owns; the
// caller wires the real engines. Log text is untrusted and is only ever
// rendered through html/template's contextual escaping.
package web

import (
	"context"
	"errors"
	"time"

	"github.com/faultline/faultline/correlate"
	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/runbookgen"
	"github.com/faultline/faultline/schema"
)

// Backend answers the questions the pages ask. It is owned here, by its
// consumer. Every method honours ctx (the server sets a deadline per
// request). Unknown trace or runbook ids return an error wrapping
// schema.ErrNotFound; an empty window is a Report with zero traces, not an error.
type Backend interface {
	// Incident ranks root-cause candidates in [q.From, q.To), best first.
	Incident(ctx context.Context, q IncidentQuery) (*rootcause.Report, error)
	// Trace explains one trace.
	Trace(ctx context.Context, id schema.TraceID) (*correlate.Result, error)
	// Runbook returns the runbook of a candidate id or of a failure kind.
	Runbook(ctx context.Context, id string) (*runbookgen.Runbook, error)
}

// IncidentQuery selects the incident window. From is inclusive, To
// exclusive; an empty Service means every service; Top caps the number of
// candidates (0: the backend's default).
type IncidentQuery struct {
	From, To time.Time
	Service  string
	Top      int
}

// ErrBadInput marks a request the client must fix (a malformed trace id, an
// unparseable window); it maps to HTTP 400 and its message is shown.
var ErrBadInput = errors.New("bad input")

// ErrConfig is returned by New for an unusable Config.
var ErrConfig = errors.New("invalid web configuration")
