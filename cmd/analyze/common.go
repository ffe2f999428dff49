package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/faultline/faultline/analysis"
	"github.com/faultline/faultline/internal/cli"
	"github.com/faultline/faultline/runbookgen"
	"github.com/faultline/faultline/store"
)

// usageError is bad usage or bad input: exit code 2.
type usageError struct{ msg string }

func (u usageError) Error() string { return u.msg }

func badUsage(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

// errHelp is returned by parseFlags after printing a subcommand's help.
var errHelp = errors.New("help requested")

// parseFlags parses args with fs, letting flags stand before or after the
// positional arguments, and returns the positional ones. -h or --help
// prints the flags to fs's output and returns errHelp.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	out := fs.Output()
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprintf(out, "usage: analyze %s [flags]\n", fs.Name())
				fs.SetOutput(out)
				fs.PrintDefaults()
				return nil, errHelp
			}
			return nil, badUsage("%v", err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// fail prints err as one sentence on stderr and returns its exit code.
func fail(e *env, cmd string, err error) int {
	if errors.Is(err, errHelp) {
		return exitOK
	}
	msg := err.Error()
	if msg != "" {
		msg = strings.ToUpper(msg[:1]) + msg[1:]
	}
	if !strings.HasSuffix(msg, ".") && !strings.HasSuffix(msg, "?") {
		msg += "."
	}
	fmt.Fprintf(e.Stderr, "analyze %s: %s\n", cmd, msg)
	var u usageError
	if errors.As(err, &u) {
		return exitUsage
	}
	return exitFail
}

// storeFlags are the flags every store-reading command shares.
type storeFlags struct {
	url      string
	runbooks string
	public   string
	// create lets engine make a new store (the demo's); reading commands never do.
	create bool
	// mem is --memory-limit, set by engine (bindMemory binds it).
	mem memoryLimit
}

func (s *storeFlags) bind(fs *flag.FlagSet, e *env) {
	fs.StringVar(&s.url, "store", store.DefaultURL(e.Getenv), "store URL or path")
	fs.StringVar(&s.runbooks, "runbooks", e.Getenv("FAULTLINE_RUNBOOKS"), "folder of team runbook templates")
	fs.StringVar(&s.public, "public-url", e.Getenv("FAULTLINE_PUBLIC_URL"), "base URL of links")
}

// bindMemory binds --memory-limit, for the commands that analyse.
func (s *storeFlags) bindMemory(fs *flag.FlagSet) {
	fs.Var(&s.mem, "memory-limit", memoryLimitHelp)
}

// engine opens an existing store and builds the analysis engine; close
// releases it. readOnly false still never creates a store: it only lets
// the analysis keep its runbooks there.
//
// engine sets the runtime's soft memory limit (--memory-limit, see
// memoryLimit); close puts back the one before.
func (s *storeFlags) engine(ctx context.Context, readOnly bool, log *slog.Logger) (*analysis.Engine, func(), error) {
	eng, closeFn, err := s.openEngine(ctx, readOnly, log)
	if err != nil {
		return nil, nil, err
	}
	limit, restore := s.mem.apply(os.Getenv)
	log.Debug("memory limit", "limit", formatBytes(limit))
	return eng, func() { closeFn(); restore() }, nil
}

func (s *storeFlags) openEngine(ctx context.Context, readOnly bool, log *slog.Logger) (*analysis.Engine, func(), error) {
	if !readOnly && !s.create {
		probe, err := store.Open(ctx, s.url, store.Options{ReadOnly: true, Logger: log})
		if err != nil {
			return nil, nil, withDemoHint(s.url, err)
		}
		probe.Close()
	}
	st, err := s.open(ctx, readOnly, log)
	if err != nil {
		return nil, nil, withDemoHint(s.url, err)
	}
	gen, err := runbookgen.New(runbookgen.Config{TemplatesDir: s.runbooks, PublicURL: s.public, Store: s.url}, log)
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	for _, p := range gen.Problems() {
		log.Warn("team runbook template ignored; the built-in one is used", "problem", p)
	}
	eng, err := analysis.New(st, gen, log)
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	return eng, func() { st.Close() }, nil
}

// writeProbe is the document a reading command writes to learn whether
// the store takes writes (an immutable file, a directory it may not write).
const writeProbeKind, writeProbeID = "analyze-write-probe", "last"

// open opens the store for reading and, unless readOnly, for writing. A
// reading command (not s.create) on a store it may read but not write
// (an immutable file, a directory without write permission) falls back to
// reading only, with a warning: what it would keep (candidate runbooks) is
// then not kept.
func (s *storeFlags) open(ctx context.Context, readOnly bool, log *slog.Logger) (store.Store, error) {
	st, err := store.Open(ctx, s.url, store.Options{ReadOnly: readOnly, Logger: log})
	if readOnly || s.create || errors.Is(err, store.ErrCorrupt) || errors.Is(err, store.ErrNoStore) {
		return st, err
	}
	if err == nil {
		perr := st.PutDoc(ctx, writeProbeKind, writeProbeID, []byte(time.Now().UTC().Format(time.RFC3339)))
		if perr == nil || ctx.Err() != nil {
			return st, nil
		}
		st.Close()
		err = perr
	}
	ro, rerr := store.Open(ctx, s.url, store.Options{ReadOnly: true, Logger: log})
	if rerr != nil {
		return nil, err
	}
	log.Warn("store not writable; opened read-only, so candidate runbooks are not kept in it", "error", err)
	return ro, nil
}

// logger writes warnings to stderr as plain text.
func logger(e *env) *slog.Logger {
	// $FAULTLINE_LOG_LEVEL, as ingest reads it (debug shows each store
	// query and its time); warn by default.
	lvl := slog.LevelWarn
	if err := lvl.UnmarshalText([]byte(e.Getenv("FAULTLINE_LOG_LEVEL"))); err != nil {
		lvl = slog.LevelWarn
	}
	return slog.New(slog.NewTextHandler(e.Stderr, &slog.HandlerOptions{Level: lvl}))
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// window resolves --since or --from/--to against now.
func window(since, from, to string, now time.Time) (time.Time, time.Time, error) {
	if from != "" || to != "" {
		if since != "" {
			return time.Time{}, time.Time{}, badUsage("give either --since or --from and --to, not both")
		}
		if from == "" {
			return time.Time{}, time.Time{}, badUsage("--to needs --from (or use --since)")
		}
		f, err := time.Parse(time.RFC3339, from)
		if err != nil {
			return time.Time{}, time.Time{}, badUsage("--from %q is not an RFC3339 time such as 2026-11-30T10:00:00Z", truncate(from, 40))
		}
		t := now
		if to != "" {
			if t, err = time.Parse(time.RFC3339, to); err != nil {
				return time.Time{}, time.Time{}, badUsage("--to %q is not an RFC3339 time such as 2026-11-30T10:30:00Z", truncate(to, 40))
			}
		}
		if !t.After(f) {
			return time.Time{}, time.Time{}, badUsage("--to must be after --from")
		}
		return f, t, nil
	}
	if since == "" {
		since = "30m"
	}
	d, err := cli.ParseDuration(since, cli.MaxDuration)
	if err != nil {
		return time.Time{}, time.Time{}, badUsage("%s", cli.DurationError("--since", since, err, cli.MaxDuration))
	}
	return now.Add(-d), now, nil
}

// terminalText writes s to w with control characters from log text made
// visible (cli.TerminalSafe); JSON output never goes through it.
func terminalText(w io.Writer, s string) error { return cli.WriteTerminal(w, s) }

// terminalWriter buffers what a text renderer writes, for terminalText.
type terminalWriter struct {
	w io.Writer
	b strings.Builder
}

func (t *terminalWriter) Write(p []byte) (int, error) { return t.b.Write(p) }

// flush writes the buffered text, neutralised.
func (t *terminalWriter) flush() error { return terminalText(t.w, t.b.String()) }
