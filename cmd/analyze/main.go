// Command analyze explains failures: one trace, an incident window, the
// runbook of a candidate, log patterns, evaluation, Slack enrichment, the
// web UI and a demo. See CONTRACT.md for the stable interface.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
)

// Exit codes, per the contract.
const (
	exitOK    = 0
	exitFail  = 1 // a failure while working: store unreachable, ...
	exitUsage = 2 // bad usage or bad input
)

func main() {
	if os.Getenv("GOGC") == "" {
		// Incident analysis allocates a lot of short-lived records; a
		// laxer collector cut its CPU by about 15% on a 1M-record window.
		debug.SetGCPercent(400)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// env is what a subcommand may touch: its streams and the environment.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
}

type command struct {
	name, args, help string
	run              func(ctx context.Context, e *env, args []string) int
}

// commands lists every subcommand; each lives in its own file.
func commands() []command {
	return []command{
		{"trace", "[--store URL] [--json] TRACE_ID", "explain one trace: origin, cascade, suspect", runTrace},
		{"incident", "[--store URL] [--json] [--since 30m | --from T --to T] [--service NAME] [--top N]", "rank root-cause candidates in a window", runIncident},
		{"runbook", "[--store URL] CANDIDATE_ID | KIND", "print a runbook as Markdown", runRunbook},
		{"patterns", "[--json] FILE...", "group raw log lines into error signatures", runPatterns},
		{"eval", "[--json] DIR...", "score the analysis against labelled case folders", runEval},
		{"enrich", "[--store URL] [--json] --alert FILE", "print the Slack message an alert would get", runEnrich},
		{"serve", "[--store URL] [--listen :8080]", "web UI, JSON API and alert webhooks", runServe},
		{"demo", "", "write a realistic incident into a fresh embedded store and analyse it", runDemo},
	}
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, e, args[1:])
		}
	}
	fmt.Fprintf(stderr, "analyze: unknown command %q; run 'analyze help' for the list.\n", truncate(args[0], 40))
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: analyze COMMAND [flags] [args]")
	fmt.Fprintln(w)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n            %s\n", c.name, c.args, c.help)
	}
	fmt.Fprintln(w, "\nThe store is --store URL, else $FAULTLINE_STORE, else ./faultline.db.")
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
