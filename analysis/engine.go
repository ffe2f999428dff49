// Package analysis joins the engines into what the CLI, the web UI and the
// Slack enrichment serve: an incident ranked and linked to saved runbooks,
// a trace explained with the runbook of its suspect, a runbook by id.
package analysis

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/faultline/faultline/correlate"
	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/runbookgen"
	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store"
)

// Engine answers the three questions. Store is required; Runbooks, when
// nil, is a Generator with the built-in templates.
type Engine struct {
	Store     store.Store
	Runbooks  *runbookgen.Generator
	Rootcause rootcause.Options
	Correlate correlate.Options
	Log       *slog.Logger
}

// New returns an Engine over st with the runbook generator gen (nil: built-ins).
func New(st store.Store, gen *runbookgen.Generator, log *slog.Logger) (*Engine, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if gen == nil {
		var err error
		if gen, err = runbookgen.New(runbookgen.Config{}, log); err != nil {
			return nil, err
		}
	}
	return &Engine{Store: st, Runbooks: gen, Log: log}, nil
}

// Incident ranks the candidates of q's window, writes each one's runbook,
// saves the runbooks so their links keep working, and links them from the
// candidates. A store opened read-only keeps the runbooks unsaved (logged).
func (e *Engine) Incident(ctx context.Context, q rootcause.Query) (*rootcause.Report, error) {
	rep, err := rootcause.Analyze(ctx, e.Store, q, e.Rootcause)
	if err != nil {
		return nil, err
	}
	if q.Service != "" && !wrote(rep, q.Service) {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("service %q wrote nothing in this window; check the name (services seen: %s)",
			cut(q.Service, 60), servicesSeen(rep, 8)))
	}
	rbs := e.Runbooks.Attach(rep)
	if err := runbookgen.SaveAll(ctx, e.Store, rbs); err != nil {
		if !errors.Is(err, store.ErrReadOnly) {
			return nil, fmt.Errorf("cannot keep the runbooks of the incident: %w", err)
		}
		e.Log.Warn("runbooks not saved: the store is read-only", "error", err)
	}
	return rep, nil
}

// Trace explains one trace. An unknown trace is an error wrapping
// schema.ErrNotFound.
func (e *Engine) Trace(ctx context.Context, id schema.TraceID) (*correlate.Result, error) {
	res, err := correlate.Analyze(ctx, e.Store, id, e.Correlate)
	if err != nil {
		return nil, err
	}
	if res.Suspect != nil && res.Suspect.Kind.Valid() {
		if rb, err := e.Runbooks.ForKind(res.Suspect.Kind); err == nil {
			res.Runbook = rb.Ref()
		}
	}
	return res, nil
}

// Runbook returns a saved runbook by id, or the generic runbook of a kind
// when id is a kind word. Unknown ids wrap schema.ErrNotFound.
func (e *Engine) Runbook(ctx context.Context, id string) (*runbookgen.Runbook, error) {
	if k := schema.Kind(id); k.Valid() {
		return e.Runbooks.ForKind(k)
	}
	return runbookgen.Load(ctx, e.Store, id)
}

// wrote reports whether svc has records in the report's window.
func wrote(rep *rootcause.Report, svc string) bool {
	for _, s := range rep.Services {
		if s.Service == svc {
			return true
		}
	}
	return false
}

func servicesSeen(rep *rootcause.Report, n int) string {
	var names []string
	for _, s := range rep.Services {
		names = append(names, s.Service)
	}
	if len(names) > n {
		return strings.Join(names[:n], ", ") + fmt.Sprintf(" and %d more", len(names)-n)
	}
	return strings.Join(names, ", ")
}

func cut(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
