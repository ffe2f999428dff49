package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/faultline/faultline/runbookgen"
	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store"
)

type runbookFlags struct {
	storeFlags
	json bool
}

// runRunbook prints a runbook as Markdown: the generic runbook of a kind
// word (no store needed), otherwise the runbook saved under a candidate or
// runbook id by `analyze incident`.
func runRunbook(ctx context.Context, e *env, args []string) int {
	var f runbookFlags
	fs := flag.NewFlagSet("runbook", flag.ContinueOnError)
	fs.SetOutput(e.Stderr)
	f.bind(fs, e)
	fs.BoolVar(&f.json, "json", false, "print the runbook document as JSON")
	pos, err := parseFlags(fs, args)
	if err == nil && len(pos) != 1 {
		err = badUsage("give one candidate id (from 'analyze incident') or one failure kind such as %s", schema.KindDBPoolExhaustion)
	}
	if err != nil {
		return fail(e, "runbook", err)
	}
	rb, err := f.find(ctx, e, pos[0])
	if err != nil {
		return fail(e, "runbook", err)
	}
	if err := printRunbook(e.Stdout, rb, f.json); err != nil {
		return fail(e, "runbook", fmt.Errorf("cannot write the runbook: %w", err))
	}
	return exitOK
}

// find returns the generic runbook of a kind word, or loads a saved one.
func (f *runbookFlags) find(ctx context.Context, e *env, arg string) (*runbookgen.Runbook, error) {
	if k := schema.Kind(arg); k.Valid() {
		// The store is named, as an incident's runbook names it, so that
		// the generic runbook's analyze commands run as printed; a default
		// store that is not there is no store to name, and the runbook
		// then says which store its commands read.
		known := f.url
		if known == store.DefaultPath {
			if _, err := os.Stat(known); err != nil {
				known = ""
			}
		}
		gen, err := runbookgen.New(runbookgen.Config{TemplatesDir: f.runbooks, PublicURL: f.public, Store: known}, logger(e))
		if err != nil {
			return nil, badUsage("%v", err)
		}
		return gen.ForKind(k)
	}
	if !runbookgen.ValidID(arg) {
		return nil, badUsage("%q is neither a failure kind nor a runbook id; run 'analyze incident' to list candidates and their ids", truncate(arg, 40))
	}
	st, err := store.Open(ctx, f.url, store.Options{ReadOnly: true, Logger: logger(e)})
	if errors.Is(err, store.ErrNoStore) {
		return nil, fmt.Errorf("no store at %q: run 'analyze incident' first, or give --store", truncate(f.url, 80))
	}
	if err != nil {
		return nil, err
	}
	defer st.Close()
	rb, err := runbookgen.Load(ctx, st, arg)
	if errors.Is(err, schema.ErrNotFound) {
		// An id that names no runbook is bad input (exit 2), as a
		// malformed one is.
		return nil, badUsage("no runbook %q in the store %q: run 'analyze incident' first so candidates get their runbooks, then use an id it prints", arg, truncate(f.url, 80))
	}
	return rb, err
}

func printRunbook(w io.Writer, rb *runbookgen.Runbook, asJSON bool) error {
	if asJSON {
		return writeJSON(w, rb)
	}
	return terminalText(w, rb.Markdown) // log text inside: no raw control characters
}
