package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/faultline/faultline/store"
	"github.com/faultline/faultline/store/clickhouse"
)

// dlqFlags are the flags of every dlq subcommand.
type dlqFlags struct {
	store, spoolDir string
	json, all       bool
}

const dlqUsage = "usage: ingest dlq list|show|replay|drop [--spool-dir DIR] [--store URL] [--json] [ID... | --all]"

// runDLQ implements "ingest dlq": the dead-letter batches of the ClickHouse
// writer (batches ClickHouse refused as bad several times), to list, show,
// replay into the store, or drop. The directory is --spool-dir, else
// $FAULTLINE_SPOOL_DIR, else the spool_dir parameter of the store URL; the
// dead letters are its dlq/ subdirectory.
func runDLQ(ctx context.Context, e *env, args []string) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return fail(e.Stderr, exitUsage, "%s", dlqUsage)
	}
	verb := args[0]
	var f dlqFlags
	fs := newFlags(e, "dlq "+verb)
	fs.StringVar(&f.store, "store", "", "ClickHouse store URL (replay); default $FAULTLINE_STORE")
	fs.StringVar(&f.spoolDir, "spool-dir", "", "the writer's spool directory; default $FAULTLINE_SPOOL_DIR or the store URL's spool_dir")
	fs.BoolVar(&f.json, "json", false, "one JSON document on stdout")
	fs.BoolVar(&f.all, "all", false, "replay or drop every dead-letter batch")
	ids, err := parseInterspersed(fs, args[1:])
	if err != nil {
		return flagError(e, fs, err)
	}
	if f.store == "" {
		f.store = store.DefaultURL(e.Getenv)
	}
	q, code := openDLQ(e, &f)
	if q == nil {
		return code
	}
	switch verb {
	case "list":
		return dlqList(e, q, f)
	case "show":
		return dlqEach(e, q, f, ids, func(id string) int { return dlqShow(e, q, id) })
	case "replay":
		return dlqReplay(ctx, e, q, f, ids)
	case "drop":
		return dlqEach(e, q, f, ids, func(id string) int { return dlqDrop(e, q, id) })
	}
	return fail(e.Stderr, exitUsage, "unknown dlq command %q; %s", truncate(verb, 20), dlqUsage)
}

// parseInterspersed parses flags that may come before, between or after
// the batch ids, and returns the ids.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var ids []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return ids, nil
		}
		ids, args = append(ids, fs.Arg(0)), fs.Args()[1:]
	}
}

func openDLQ(e *env, f *dlqFlags) (*clickhouse.DLQ, int) {
	dir := f.spoolDir
	if dir == "" {
		dir = strings.TrimSpace(e.Getenv("FAULTLINE_SPOOL_DIR"))
	}
	if dir == "" {
		dir = clickhouse.SpoolDirOf(f.store)
	}
	if dir == "" {
		return nil, fail(e.Stderr, exitUsage, "no spool directory: give --spool-dir DIR, set FAULTLINE_SPOOL_DIR, or add spool_dir=DIR to the store URL.")
	}
	q, err := clickhouse.OpenDLQ(clickhouse.DLQDir(dir))
	if err != nil {
		return nil, fail(e.Stderr, exitFail, "%v.", err)
	}
	return q, exitOK
}

func dlqList(e *env, q *clickhouse.DLQ, f dlqFlags) int {
	list, err := q.List()
	if err != nil {
		return fail(e.Stderr, exitFail, "%v.", err)
	}
	if f.json {
		return writeJSON(e, map[string]any{"dir": q.Dir(), "batches": list})
	}
	if len(list) == 0 {
		fmt.Fprintf(e.Stdout, "no dead-letter batches in %s\n", q.Dir())
		return exitOK
	}
	tw := tabwriter.NewWriter(e.Stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tRECORDS\tTRIES\tFAILED\tLAST ERROR")
	for _, b := range list {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\n", b.ID, b.Records, b.Tries, b.Failed.Format(time.RFC3339), truncate(oneLine(b.LastError), 80))
	}
	tw.Flush()
	return exitOK
}

// dlqEach runs do for every id given (or every batch with --all).
func dlqEach(e *env, q *clickhouse.DLQ, f dlqFlags, ids []string, do func(string) int) int {
	if f.all {
		list, err := q.List()
		if err != nil {
			return fail(e.Stderr, exitFail, "%v.", err)
		}
		ids = ids[:0]
		for _, b := range list {
			ids = append(ids, b.ID)
		}
	} else if len(ids) == 0 {
		return fail(e.Stderr, exitUsage, "name a batch ID (see 'ingest dlq list') or give --all.")
	}
	worst := exitOK
	for _, id := range ids {
		worst = max(worst, do(id))
	}
	return worst
}

func dlqShow(e *env, q *clickhouse.DLQ, id string) int {
	b, recs, err := q.Show(id)
	if err != nil {
		return dlqFail(e, err)
	}
	return writeJSON(e, map[string]any{"batch": b, "records": recs})
}

func dlqDrop(e *env, q *clickhouse.DLQ, id string) int {
	if err := q.Drop(id); err != nil {
		return dlqFail(e, err)
	}
	fmt.Fprintf(e.Stdout, "dropped %s\n", id)
	return exitOK
}

func dlqReplay(ctx context.Context, e *env, q *clickhouse.DLQ, f dlqFlags, ids []string) int {
	if !strings.HasPrefix(f.store, "clickhouse://") && !strings.HasPrefix(f.store, "http") {
		return fail(e.Stderr, exitUsage, "replay needs a ClickHouse store: give --store clickhouse://HOST:PORT/DB.")
	}
	s, err := clickhouse.Open(ctx, f.store, clickhouse.Options{Logger: logger(e, true), Writer: clickhouse.WriterOptions{NoSpool: true}})
	if err != nil {
		return fail(e.Stderr, exitFail, "%v; check that ClickHouse is reachable.", err)
	}
	defer s.Close()
	return dlqEach(e, q, f, ids, func(id string) int {
		n, err := s.ReplayDead(ctx, q, id)
		if err != nil {
			return dlqFail(e, err)
		}
		fmt.Fprintf(e.Stdout, "replayed %s (%d records)\n", id, n)
		return exitOK
	})
}

func dlqFail(e *env, err error) int {
	if errors.Is(err, clickhouse.ErrNoDeadBatch) {
		return fail(e.Stderr, exitUsage, "%v; see 'ingest dlq list'.", err)
	}
	return fail(e.Stderr, exitFail, "%v.", err)
}

func writeJSON(e *env, v any) int {
	enc := json.NewEncoder(e.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fail(e.Stderr, exitFail, "cannot write JSON: %v.", err)
	}
	return exitOK
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
