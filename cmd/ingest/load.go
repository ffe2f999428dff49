package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/faultline/faultline/ingest"
	"github.com/faultline/faultline/store"
	"github.com/faultline/faultline/store/sqlite"
)

type loadFlags struct {
	store    string
	patterns string
	service  string
	quiet    bool
}

// runLoad loads each file into the store and prints one line per file:
// its detected format, records accepted and rejected by reason.
func runLoad(ctx context.Context, e *env, args []string) int {
	var f loadFlags
	fs := newFlags(e, "load")
	fs.StringVar(&f.store, "store", "", "store URL (default $FAULTLINE_STORE, else ./faultline.db)")
	fs.StringVar(&f.patterns, "patterns", "", "JSON file of extra text patterns (default $FAULTLINE_PATTERNS)")
	fs.StringVar(&f.service, "service", "", "service of plain-text and JSON-lines records that name none (default: the file's base name without extensions)")
	fs.BoolVar(&f.quiet, "q", false, "print nothing but errors")
	if err := fs.Parse(args); err != nil {
		return flagError(e, fs, err)
	}
	if fs.NArg() == 0 {
		return fail(e.Stderr, exitUsage, "give at least one FILE to load (\"-\" reads standard input).")
	}
	dec, err := decoder(e, f.patterns, ingest.Limits{})
	if err != nil {
		return fail(e.Stderr, exitUsage, "%v; fix the patterns file.", err)
	}
	for _, name := range fs.Args() {
		if name == "-" {
			continue
		}
		if st, err := os.Stat(name); err != nil || st.IsDir() {
			return fail(e.Stderr, exitUsage, "cannot read %q: it is missing or not a regular file; check the path.", truncate(name, 200))
		}
	}
	if f.store == "" {
		f.store = store.DefaultURL(e.Getenv)
	}
	if err := store.CheckURL(f.store); err != nil {
		return storeFailure(e, err)
	}
	// A run that fails without loading anything leaves no new store behind.
	created := newStoreFile(f.store)
	log := logger(e, true)
	st, err := openStore(ctx, e, f.store, log)
	if err != nil {
		removeNewStore(e, created)
		return storeFailure(e, err)
	}
	opt := ingest.LoadOptions{Service: strings.TrimSpace(f.service)}
	code, accepted := loadAll(ctx, e, ingest.NewLoader(dec, st, log), fs.Args(), opt, f.quiet)
	if err := st.Close(); err != nil && code == exitOK {
		return fail(e.Stderr, exitFail, "cannot close the store: %v.", err)
	}
	if code != exitOK && accepted == 0 {
		removeNewStore(e, created)
	}
	return code
}

// loadAll loads every file in turn and returns the exit code and the
// records accepted (some may be stored even when their file then failed).
// A file that cannot be read is reported and skipped (exit 2 at the end);
// a store failure stops at once (exit 1), since the files after it would
// fail too.
func loadAll(ctx context.Context, e *env, l *ingest.Loader, names []string, opt ingest.LoadOptions, quiet bool) (code, accepted int) {
	for _, name := range names {
		stats, format, err := loadOne(ctx, e, l, name, opt)
		accepted += stats.Accepted
		if err != nil {
			if errors.Is(err, ingest.ErrSink) || ctx.Err() != nil {
				return fail(e.Stderr, exitFail, "%v.", err), accepted
			}
			fail(e.Stderr, exitUsage, "%v; skipped.", err)
			code = exitUsage
			continue
		}
		if !quiet {
			fmt.Fprintln(e.Stdout, summary(name, format, stats))
		}
	}
	return code, accepted
}

// newStoreFile is the file of the embedded store url names when there is
// none yet, so that this run creates it; "" otherwise.
func newStoreFile(url string) string {
	path, ok := store.EmbeddedPath(url)
	if !ok {
		return ""
	}
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		return ""
	}
	return path
}

// removeNewStore removes the store file this run created (path; ""
// is none) with its WAL files, unless another process opened it meanwhile.
func removeNewStore(e *env, path string) {
	if path == "" {
		return
	}
	if inUse, err := sqlite.InUse(path); err != nil || inUse {
		return
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			fail(e.Stderr, exitFail, "cannot remove the empty store %q this run created: %v; remove it by hand.", truncate(p, 200), err)
		}
	}
}

func loadOne(ctx context.Context, e *env, l *ingest.Loader, name string, opt ingest.LoadOptions) (ingest.Stats, ingest.Format, error) {
	var r io.Reader = e.Stdin
	if name != "-" {
		fh, err := os.Open(name)
		if err != nil {
			return ingest.Stats{}, "", fmt.Errorf("cannot read %q: %w", truncate(name, 200), err)
		}
		defer fh.Close()
		r = fh
	}
	return l.LoadWith(ctx, name, r, opt)
}

// summary is the line printed for one loaded file.
func summary(name string, format ingest.Format, st ingest.Stats) string {
	if format == "" && st.Rejected == 0 {
		return name + ": empty file, nothing to load"
	}
	if format == "" {
		format = "unknown format"
	}
	s := fmt.Sprintf("%s: %s, %d %s accepted, %d rejected%s", name, format, st.Accepted, noun(st.Accepted, "record", "records"), st.Rejected, reasons(st))
	if st.Truncated > 0 {
		s += fmt.Sprintf("; %d with attributes cut to the limits", st.Truncated)
	}
	return s
}

func reasons(st ingest.Stats) string {
	if st.Rejected == 0 {
		return ""
	}
	s := " ("
	for i, r := range st.Reasons() {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s: %d", r, st.Rejects[r])
	}
	return s + ")"
}

func noun(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
