package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/faultline/faultline/analysis"
	"github.com/faultline/faultline/correlate"
	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/runbookgen"
	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store"
	"github.com/faultline/faultline/web"
)

// recentReports is how many incident reports webBackend keeps to rebuild
// candidate runbooks a read-only store could not save.
const recentReports = 8

// webBackend adapts the analysis engine to web.Backend: it turns an empty
// window into an empty report (the page explains it), maps the engines'
// input errors to web.ErrBadInput, and, when the store is read-only, serves
// the runbooks of recently shown candidates from memory.
type webBackend struct {
	eng *analysis.Engine
	// damaged is the first read error that found the store corrupt: from
	// then on /healthz says so (see health).
	damaged atomic.Pointer[error]

	mu     sync.Mutex
	recent []*rootcause.Report // newest last, at most recentReports
}

var (
	_ web.Backend     = (*webBackend)(nil)
	_ web.TraceLister = (*webBackend)(nil)
	_ web.StoreNamer  = (*webBackend)(nil)
	_ web.EdgeTimer   = (*webBackend)(nil)
	_ web.StoreBounds = (*webBackend)(nil)
)

func newWebBackend(eng *analysis.Engine) *webBackend { return &webBackend{eng: eng} }

// Incident ranks the window's candidates.
func (b *webBackend) Incident(ctx context.Context, q web.IncidentQuery) (*rootcause.Report, error) {
	rq := rootcause.Query{From: q.From, To: q.To, Service: q.Service, Top: q.Top}
	rep, err := b.eng.Incident(ctx, rq)
	switch {
	case errors.Is(err, rootcause.ErrNoData):
		return &rootcause.Report{Window: rootcause.Window{From: q.From, To: q.To}, Candidates: []rootcause.Candidate{}}, nil
	case errors.Is(err, rootcause.ErrBadWindow):
		return nil, fmt.Errorf("%w: %v", web.ErrBadInput, err)
	case err != nil:
		return nil, b.note(err)
	}
	b.remember(rep)
	return rep, nil
}

// Trace explains one trace; unknown ids wrap schema.ErrNotFound.
func (b *webBackend) Trace(ctx context.Context, id schema.TraceID) (*correlate.Result, error) {
	res, err := b.eng.Trace(ctx, id)
	return res, b.note(err)
}

// StoreFlag is the " --store ARG" of the commands the pages show to copy
// (web.StoreNamer), so that they read this server's store.
func (b *webBackend) StoreFlag() string { return b.eng.Runbooks.StoreFlag() }

// Traces lists a window's traces and charts its services (/traces).
func (b *webBackend) Traces(ctx context.Context, q analysis.TracesQuery) (*analysis.TraceList, error) {
	list, err := b.eng.Traces(ctx, q)
	if errors.Is(err, rootcause.ErrBadWindow) {
		return nil, fmt.Errorf("%w: %v", web.ErrBadInput, err)
	}
	return list, b.note(err)
}

// Bounds is the time of the store's oldest and newest records, for the
// web's default window (web.StoreBounds).
func (b *webBackend) Bounds(ctx context.Context) (first, last time.Time, err error) {
	first, last, err = b.eng.Store.Bounds(ctx)
	return first, last, b.note(err)
}

// edgeAttrs are the attributes web.TimeEdges reads: those that name the
// peer a client span called (rootcause.PeerOf).
var edgeAttrs = []string{schema.AttrPeerService, "server.address", "net.peer.name"}

// EdgeTimes times the calls along the dependency map's edges in window
// and baseline (web.EdgeTimer), from the newest analysis.MaxTraceRecords
// records of each, as /traces reads them.
func (b *webBackend) EdgeTimes(ctx context.Context, window, baseline rootcause.Window) ([]web.EdgeTime, error) {
	read := func(w rootcause.Window) ([]schema.Record, error) {
		if !w.To.After(w.From) {
			return nil, nil
		}
		var recs []schema.Record
		q := schema.WindowQuery{From: w.From, To: w.To, Limit: analysis.MaxTraceRecords, Newest: true, Attrs: edgeAttrs}
		for r, err := range b.eng.Store.WindowRecords(ctx, q) {
			if err != nil {
				return nil, b.note(err)
			}
			recs = append(recs, r)
		}
		return recs, nil
	}
	now, err := read(window)
	if err != nil {
		return nil, err
	}
	base, err := read(baseline)
	if err != nil {
		return nil, err
	}
	return web.TimeEdges(now, base), nil
}

// note keeps the first error that found the store damaged and marks such
// errors web.ErrUnhealthy, so the page says the store is corrupt.
func (b *webBackend) note(err error) error {
	if !errors.Is(err, store.ErrCorrupt) {
		return err
	}
	b.damaged.CompareAndSwap(nil, &err)
	return fmt.Errorf("%w: %w", web.ErrUnhealthy, err)
}

// integrityChecker is a store that can check its file in use (the
// embedded one opened read-write).
type integrityChecker interface {
	CheckIntegrity(ctx context.Context) error
}

// healthCheckEvery spaces the integrity checks /healthz runs.
const healthCheckEvery = 5 * time.Minute

// health is /healthz's check: damage a read found (sticky), else a small
// read (the store's stats and bounds). When the store can check its file
// in use (the embedded one opened read-write), a check runs in the
// background at most every healthCheckEvery, so a probe never waits for
// it; damage it finds is sticky too. Corruption wraps web.ErrUnhealthy.
func (b *webBackend) health(st store.Store) func(context.Context) error {
	var mu sync.Mutex
	var last time.Time
	check := func() {
		ic, ok := st.(integrityChecker)
		if !ok {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if time.Since(last) < healthCheckEvery {
			return
		}
		last = time.Now()
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := ic.CheckIntegrity(ctx); errors.Is(err, store.ErrCorrupt) {
				b.damaged.CompareAndSwap(nil, &err)
			}
		}()
	}
	return func(ctx context.Context) error {
		check()
		if p := b.damaged.Load(); p != nil {
			return fmt.Errorf("%w: %w", web.ErrUnhealthy, *p)
		}
		_, err := st.Stats(ctx)
		if err == nil {
			_, _, err = st.Bounds(ctx)
		}
		return b.note(err)
	}
}

// Runbook loads a saved runbook or a kind's generic one, falling back on
// the candidates of recent reports.
func (b *webBackend) Runbook(ctx context.Context, id string) (*runbookgen.Runbook, error) {
	rb, err := b.eng.Runbook(ctx, id)
	switch {
	case errors.Is(err, runbookgen.ErrBadID):
		return nil, fmt.Errorf("%w: %q is not a runbook id", web.ErrBadInput, truncate(id, 40))
	case errors.Is(err, schema.ErrNotFound):
		if rb := b.fromRecent(id); rb != nil {
			return rb, nil
		}
	}
	return rb, b.note(err)
}

func (b *webBackend) remember(rep *rootcause.Report) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.recent = append(b.recent, rep)
	if len(b.recent) > recentReports {
		b.recent = b.recent[len(b.recent)-recentReports:]
	}
}

// fromRecent rebuilds the runbook of a recently shown candidate.
func (b *webBackend) fromRecent(id string) *runbookgen.Runbook {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i := len(b.recent) - 1; i >= 0; i-- {
		rep := b.recent[i]
		for j := range rep.Candidates {
			c := &rep.Candidates[j]
			if c.ID == id || c.Runbook != nil && c.Runbook.ID == id {
				return b.eng.Runbooks.ForCandidate(rep, c)
			}
		}
	}
	return nil
}
