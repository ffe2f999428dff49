package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/sim"
	"github.com/faultline/faultline/store"
	"github.com/faultline/faultline/web"
)

// TestWebBackendReadOnly analyses a simulated incident on a read-only
// store: candidate runbooks cannot be saved there, so the adapter must
// serve them from the reports it showed.
func TestWebBackendReadOnly(t *testing.T) {
	ctx := context.Background()
	start := time.Date(2026, 1, 15, 9, 0, 0, 0, time.UTC)
	inc, err := sim.Generate(sim.Config{Seed: 3, Fault: schema.KindDBPoolExhaustion, Start: start, Baseline: 10 * time.Minute, Window: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "ro.db")
	rw, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := rw.WriteBatch(ctx, inc.Records); err != nil {
		t.Fatal(err)
	}
	if err := rw.Close(); err != nil {
		t.Fatal(err)
	}
	sf := storeFlags{url: path}
	eng, closeFn, err := sf.engine(ctx, true, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer closeFn()
	b := newWebBackend(eng)

	rep, err := b.Incident(ctx, web.IncidentQuery{From: start.Add(10 * time.Minute), To: start.Add(15 * time.Minute), Top: 5})
	if err != nil || len(rep.Candidates) == 0 || rep.Candidates[0].Runbook == nil {
		t.Fatalf("incident: %v, %+v", err, rep)
	}
	id := rep.Candidates[0].Runbook.ID
	if _, err := eng.Runbook(ctx, id); !errors.Is(err, schema.ErrNotFound) {
		t.Fatalf("the read-only store kept runbook %q (%v); this test needs it absent", id, err)
	}
	rb, err := b.Runbook(ctx, id)
	if err != nil || rb.ID != id || rb.Markdown == "" {
		t.Errorf("runbook %q from recent reports: %v", id, err)
	}
	if _, err := b.Runbook(ctx, "unknown-runbook-id"); !errors.Is(err, schema.ErrNotFound) {
		t.Errorf("unknown runbook: %v, want ErrNotFound", err)
	}

	empty, err := b.Incident(ctx, web.IncidentQuery{From: start.Add(-48 * time.Hour), To: start.Add(-47 * time.Hour)})
	if err != nil || empty.Traces != 0 || empty.Candidates == nil {
		t.Errorf("empty window: %v %+v, want an empty report", err, empty)
	}
	if _, err := b.Trace(ctx, "0123456789abcdef0123456789abcdef"); !errors.Is(err, schema.ErrNotFound) {
		t.Errorf("unknown trace: %v, want ErrNotFound", err)
	}
}
