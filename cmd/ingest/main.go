// Command ingest takes logs and spans into a faultline store: an HTTP
// server for shippers (Loki push, OTLP/HTTP, JSON lines) and an offline
// loader for files. See CONTRACT.md for the stable interface and
// ingest/README.md for shipper configuration.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Exit codes, per the contract.
const (
	exitOK    = 0
	exitFail  = 1 // a failure while working: store unreachable, ...
	exitUsage = 2 // bad usage or bad input
)

func main() {
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
		{"serve", "[--store URL] [--listen :3100] [--otlp-listen :4318] [--retention 7d] [--patterns FILE]",
			"receive Loki push, OTLP/HTTP and JSON lines", runServe},
		{"load", "[--store URL] [--patterns FILE] [--service NAME] FILE...", "load files (format detected per file, .gz accepted, - is stdin)", runLoad},
		{"dlq", "list | show ID | replay ID|--all | drop ID|--all [--spool-dir DIR] [--json]",
			"inspect and replay the batches the ClickHouse writer dead-lettered", runDLQ},
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
	fmt.Fprintf(stderr, "ingest: unknown command %q; run 'ingest help' for the list.\n", truncate(args[0], 40))
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: ingest COMMAND [flags] [args]")
	fmt.Fprintln(w)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-6s %s\n         %s\n", c.name, c.args, c.help)
	}
	fmt.Fprintln(w, "\nThe store is --store URL, else $FAULTLINE_STORE, else ./faultline.db.")
	fmt.Fprintln(w, "Extra text patterns: --patterns FILE, else $FAULTLINE_PATTERNS (see ingest/README.md).")
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
