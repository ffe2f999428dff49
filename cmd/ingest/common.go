package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/faultline/faultline/ingest"
	"github.com/faultline/faultline/store"
)

// errUsage marks a parse error already reported by the flag set.
var errUsage = errors.New("usage")

// newFlags returns a flag set that reports nothing itself: a parse error
// goes through flagError.
func newFlags(e *env, name string) *flag.FlagSet {
	fs := flag.NewFlagSet("ingest "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// flagError reports an error of fs.Parse: -h prints the flags (exit 0),
// anything else is one sentence (exit 2), per the contract.
func flagError(e *env, fs *flag.FlagSet, err error) int {
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(e.Stderr, "usage: %s [flags]\n", fs.Name())
		fs.SetOutput(e.Stderr)
		fs.PrintDefaults()
		return exitOK
	}
	return fail(e.Stderr, exitUsage, "%s: %v; run '%s -h' for its flags.", strings.TrimPrefix(fs.Name(), "ingest "), err, fs.Name())
}

// storeExit is the exit code of a failure to open the store: a store URL
// that cannot name one is bad usage (2), anything else a failure (1).
func storeExit(err error) int {
	if errors.Is(err, store.ErrBadURL) {
		return exitUsage
	}
	return exitFail
}

// storeFailure reports a failure to open or check the store in one
// sentence: a damaged store says how to recover (its message does), a bad
// URL or an unreachable store asks to check --store.
func storeFailure(e *env, err error) int {
	if errors.Is(err, store.ErrCorrupt) {
		return fail(e.Stderr, exitFail, "%v.", err)
	}
	return fail(e.Stderr, storeExit(err), "%v; check --store.", err)
}

// decoder builds the decoder from the patterns file (flag, else
// $FAULTLINE_PATTERNS); an unreadable or invalid file is a usage error.
func decoder(e *env, patterns string, lim ingest.Limits) (*ingest.Decoder, error) {
	if patterns == "" {
		patterns = strings.TrimSpace(e.Getenv("FAULTLINE_PATTERNS"))
	}
	var extra []ingest.TextPattern
	if patterns != "" {
		var err error
		if extra, err = ingest.LoadTextPatterns(patterns); err != nil {
			return nil, err
		}
	}
	tm, err := ingest.NewTextMatcher(extra)
	if err != nil {
		return nil, err
	}
	return ingest.NewDecoder(ingest.DecoderConfig{Text: tm, Limits: lim}), nil
}

// openStore opens --store, else $FAULTLINE_STORE, else the default path.
func openStore(ctx context.Context, e *env, url string, log *slog.Logger) (store.Store, error) {
	if url == "" {
		url = store.DefaultURL(e.Getenv)
	}
	return store.Open(ctx, url, store.Options{Check: true, Logger: log})
}

// logger writes structured logs to e.Stderr at the level $FAULTLINE_LOG_LEVEL
// names (debug, info, warn, error; default info).
func logger(e *env, quiet bool) *slog.Logger {
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(e.Getenv("FAULTLINE_LOG_LEVEL"))); err != nil {
		lvl = slog.LevelInfo
		if quiet {
			lvl = slog.LevelWarn
		}
	}
	return slog.New(slog.NewTextHandler(e.Stderr, &slog.HandlerOptions{Level: lvl}))
}

// fail prints one sentence to stderr and returns code.
func fail(w io.Writer, code int, format string, args ...any) int {
	fmt.Fprintf(w, "ingest: "+format+"\n", args...)
	return code
}
