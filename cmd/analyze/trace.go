package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/faultline/faultline/correlate"
	"github.com/faultline/faultline/runbookgen"
	"github.com/faultline/faultline/schema"
)

// traceFlags are the flags of `analyze trace`.
type traceFlags struct {
	store storeFlags
	json  bool
}

// runTrace explains one trace: `analyze trace [--store URL] [--json] TRACE_ID`.
// Flags may come before or after the id. A malformed id is bad input
// (exit 2); an id the store has no records of is a failure (exit 1).
func runTrace(ctx context.Context, e *env, args []string) int {
	var f traceFlags
	fs := flag.NewFlagSet("trace", flag.ContinueOnError)
	fs.SetOutput(e.Stderr)
	f.store.bind(fs, e)
	f.store.bindMemory(fs)
	fs.BoolVar(&f.json, "json", false, "print the analysis as one JSON document")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return fail(e, "trace", err)
	}
	if len(pos) != 1 {
		return fail(e, "trace", badUsage("give exactly one trace id, e.g. analyze trace 4bf92f3577b34da6a3ce929d0e0e4736"))
	}
	id, err := schema.ParseTraceID(pos[0])
	if err != nil {
		return fail(e, "trace", badUsage("%q is not a trace id: give 16 or 32 hex characters (or a decimal Datadog id)", truncate(pos[0], 40)))
	}
	if err := explainTrace(ctx, e, &f, id); err != nil {
		return fail(e, "trace", err)
	}
	return exitOK
}

// explainTrace opens the store read-only, analyses the trace and prints it.
func explainTrace(ctx context.Context, e *env, f *traceFlags, id schema.TraceID) error {
	eng, closeStore, err := f.store.engine(ctx, true, logger(e))
	if err != nil {
		return err
	}
	defer closeStore()
	res, err := eng.Trace(ctx, id)
	if errors.Is(err, schema.ErrNotFound) {
		return fmt.Errorf("no records for trace %s in store %q; check the id and --store", id, truncate(f.store.url, 80))
	}
	if err != nil {
		return err
	}
	if f.json {
		return writeJSON(e.Stdout, res)
	}
	tw := &terminalWriter{w: e.Stdout}
	if err := correlate.WriteText(tw, res); err != nil {
		return err
	}
	if err := tw.flush(); err != nil {
		return err
	}
	return writeTraceRunbook(e.Stdout, res, runbookgen.StoreFlag(f.store.url))
}

// writeTraceRunbook ends a trace's text with the runbook its suspect
// links (the incident's, else its kind's generic one) and the command
// that prints it, naming the store (store: runbookgen.StoreFlag).
func writeTraceRunbook(w io.Writer, res *correlate.Result, store string) error {
	rb := res.Runbook
	if rb == nil || rb.ID == "" {
		return nil
	}
	what := "the incident's"
	if schema.Kind(rb.ID).Valid() {
		what, store = "generic, of its kind", "" // needs no store
	}
	_, err := fmt.Fprintf(w, "\nRunbook   %s (%s, MTTR %s; %s): analyze runbook%s %s\n", rb.ID, rb.Severity, rb.MTTRTarget, what, store, rb.ID)
	return err
}
