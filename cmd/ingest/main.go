// Command ingest takes logs and spans into a faultline store: an HTTP
// server for shippers (Loki push, OTLP/HTTP, JSON lines) and an offline
// loader for files. See CONTRACT.md for the stable interface and
// ingest/README.md for shipper configuration.
package main

import (
	"context"
	"github.com/faultline/faultline/internal/cli"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Exit codes, per the contract.
const (
	exitOK    = cli.ExitOK
	exitFail  = cli.ExitFail
	exitUsage = cli.ExitUsage
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// env is what a subcommand may touch: its streams and the environment.
type env = cli.Env

type command = cli.Command

// commands lists every subcommand; each lives in its own file.
func commands() []command {
	return []command{
		{Name: "serve", Args: "[--store URL] [--listen :3100] [--otlp-listen :4318] [--otlp-grpc-listen :4317] [--retention 7d] [--patterns FILE]",
			Help: "receive Loki push, OTLP/HTTP and JSON lines", Run: runServe},
		{Name: "load", Args: "[--store URL] [--patterns FILE] [--service NAME] FILE...",
			Help: "load files (format detected per file, .gz accepted, - is stdin)", Run: runLoad},
		{Name: "dlq", Args: "list | show ID | replay ID|--all | drop ID|--all [--spool-dir DIR] [--json]",
			Help: "inspect and replay the batches the ClickHouse writer dead-lettered", Run: runDLQ},
	}
}

func program() *cli.Program {
	return &cli.Program{Name: "ingest", Commands: commands(), Notes: []string{
		"The store is --store URL, else $FAULTLINE_STORE, else ./faultline.db.",
		"Extra text patterns: --patterns FILE, else $FAULTLINE_PATTERNS (see ingest/README.md).",
		"Each command's flags: ingest COMMAND -h.",
	}}
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return program().Run(ctx, args, stdin, stdout, stderr)
}

func truncate(s string, n int) string { return cli.Truncate(s, n) }
