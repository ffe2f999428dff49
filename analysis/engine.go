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
	"time"

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
// Blocks of the store that cannot be decoded are skipped, and the report
// warns how much it lacks (skippedWarning).
func (e *Engine) Incident(ctx context.Context, q rootcause.Query) (*rootcause.Report, error) {
	ctx, skipped := store.WithSkipped(ctx)
	rep, err := rootcause.Analyze(ctx, e.Store, q, e.Rootcause)
	if err != nil {
		return nil, err
	}
	if w := e.skippedWarning(skipped, "this window and its baseline"); w != "" {
		rep.Warnings = append(rep.Warnings, w)
	}
	if q.Service != "" && !wrote(rep, q.Service) {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("service %q wrote nothing in this window; check the name (services seen: %s)",
			cut(q.Service, 60), servicesSeen(rep, 8)))
	}
	e.checkExamples(ctx, rep)
	rbs := e.Runbooks.Attach(rep)
	if err := runbookgen.SaveAll(ctx, e.Store, rbs); err != nil {
		if !errors.Is(err, store.ErrReadOnly) {
			return nil, fmt.Errorf("cannot keep the runbooks of the incident: %w", err)
		}
		e.Log.Warn("runbooks not saved: the store is read-only", "error", err)
	}
	// SaveAll may keep a candidate's version of minutes ago in place of
	// this one (a refreshing page's): link what was kept.
	for i, rb := range rbs {
		if i < len(rep.Candidates) && rep.Candidates[i].ID == rb.CandidateID {
			rep.Candidates[i].Runbook = rb.Ref()
		}
	}
	return rep, nil
}

// Example traces are checked for the best maxChecked candidates, each
// against its own analysis; a failure up to exampleSlack before the
// candidate's first error still counts (hosts' clocks differ).
const (
	maxChecked   = 5
	exampleSlack = time.Second
)

// checkExamples keeps, of each candidate's example traces, those whose own
// analysis (what `analyze trace` and the trace page show) agrees with it:
// a failing trace must name the candidate's service as its suspect, and
// any trace must have failed (or, not failing, started) after the
// candidate's first error, so that an example is never noise from before
// the onset nor another suspect's trace. A candidate may be left with
// none; its runbook then says how to find one.
func (e *Engine) checkExamples(ctx context.Context, rep *rootcause.Report) {
	for i := range rep.Candidates[:min(len(rep.Candidates), maxChecked)] {
		c := &rep.Candidates[i]
		kept := c.ExampleTraces[:0:0]
		for _, id := range c.ExampleTraces {
			res, err := correlate.Analyze(ctx, e.Store, id, e.Correlate)
			if ctx.Err() != nil {
				return
			}
			if err == nil && exampleOf(res, c) {
				kept = append(kept, id)
			} else if err != nil {
				e.Log.Debug("example trace not checked", "trace", id, "error", err)
			}
		}
		c.ExampleTraces = kept
	}
}

// exampleOf reports whether res, a trace's analysis, is an example of c.
func exampleOf(res *correlate.Result, c *rootcause.Candidate) bool {
	at := res.Start
	for _, f := range res.Failures {
		if f.Role == "origin" {
			at = f.Time // on the corrected clock
			break
		}
	}
	if !c.FirstSeen.IsZero() && at.Before(c.FirstSeen.Add(-exampleSlack)) {
		return false
	}
	return !res.Failed || res.Suspect != nil && res.Suspect.Service == c.Service
}

// Trace explains one trace. An unknown trace is an error wrapping
// schema.ErrNotFound. Undecodable blocks are skipped and warned about,
// as for Incident.
func (e *Engine) Trace(ctx context.Context, id schema.TraceID) (*correlate.Result, error) {
	ctx, skipped := store.WithSkipped(ctx)
	res, err := correlate.Analyze(ctx, e.Store, id, e.Correlate)
	if err != nil {
		return nil, err
	}
	if w := e.skippedWarning(skipped, "this trace"); w != "" {
		res.Warnings = append(res.Warnings, w)
	}
	res.Runbook = e.suspectRunbook(ctx, res)
	return res, nil
}

// suspectRunbook is the runbook a trace links for its suspect: the one the
// latest incident analysis wrote for that service when the trace falls in
// its window (runbookgen.ForSuspect), else the generic runbook of the
// suspect's kind; nil without a suspect.
func (e *Engine) suspectRunbook(ctx context.Context, res *correlate.Result) *schema.RunbookRef {
	if res.Suspect == nil {
		return nil
	}
	if rb, err := runbookgen.ForSuspect(ctx, e.Store, res.Suspect.Service, res.Start); err == nil {
		return rb.Ref()
	} else if !errors.Is(err, schema.ErrNotFound) {
		e.Log.Debug("no incident runbook for the trace's suspect", "service", res.Suspect.Service, "error", err)
	}
	if !res.Suspect.Kind.Valid() {
		return nil
	}
	if rb, err := e.Runbooks.ForKind(res.Suspect.Kind); err == nil {
		return rb.Ref()
	}
	return nil
}

// Runbook returns a saved runbook by id, or the generic runbook of a kind
// when id is a kind word. Unknown ids wrap schema.ErrNotFound.
func (e *Engine) Runbook(ctx context.Context, id string) (*runbookgen.Runbook, error) {
	if k := schema.Kind(id); k.Valid() {
		return e.Runbooks.ForKind(k)
	}
	return runbookgen.Load(ctx, e.Store, id)
}

// skippedWarning says what the reads of one analysis skipped because the
// store could not decode it ("" when nothing), and logs it.
func (e *Engine) skippedWarning(s *store.Skipped, read string) string {
	blocks, records, reason := s.Counts()
	if blocks == 0 && records == 0 {
		return ""
	}
	e.Log.Warn("analysis skipped damaged store blocks", "blocks", blocks, "records", records, "error", reason)
	what := plural(records, "record")
	if blocks > 0 {
		what += " in " + plural(blocks, "damaged block")
	}
	return fmt.Sprintf("skipped %s of the store, read for %s, that cannot be decoded; this answer is from the rest: %v", what, read, reason)
}

func plural(n int64, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
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
