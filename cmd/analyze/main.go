// Command analyze explains failures: one trace, an incident window, the
// runbook of a candidate, log patterns, evaluation, Slack enrichment, the
// web UI and a demo. See CONTRACT.md for the stable interface.
package main

import (
	"context"
	"fmt"
	"github.com/faultline/faultline/internal/cli"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
)

// Exit codes, per the contract.
const (
	exitOK    = cli.ExitOK
	exitFail  = cli.ExitFail
	exitUsage = cli.ExitUsage
)

func main() {
	// The collector runs at Go's default pace (GOGC=100; the environment's
	// GOGC when set). An analysis holds its failing traces, not its window
	// (rootcause/stream.go), so a laxer pace (400) now saves little time
	// (3-10% on 500k- and 1M-record windows) for 1.6-1.8 times the memory.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	stopProfile := cpuProfile(os.Getenv("FAULTLINE_CPU_PROFILE"), os.Stderr)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stopProfile()
	memProfile(os.Getenv("FAULTLINE_MEM_PROFILE"), os.Stderr)
	stop()
	os.Exit(code)
}

// env is what a subcommand may touch: its streams and the environment.
type env = cli.Env

type command = cli.Command

// commands lists every subcommand; each lives in its own file.
func commands() []command {
	return []command{
		{Name: "trace", Args: "[--store URL] [--json] TRACE_ID",
			Help: "explain one trace: origin, cascade, suspect", Run: runTrace},
		{Name: "incident", Args: "[--store URL] [--json] [--since 30m | --from T --to T] [--service NAME] [--top N]",
			Help: "rank root-cause candidates in a window", Run: runIncident},
		{Name: "runbook", Args: "[--store URL] [--json] CANDIDATE_ID | RUNBOOK_ID | KIND",
			Help: "print a runbook as Markdown", Run: runRunbook},
		{Name: "patterns", Args: "[--json] FILE...",
			Help: "group raw log lines into error signatures", Run: runPatterns},
		{Name: "eval", Args: "[--json] [--baselines] [--ablate [--rules LIST]] DIR...",
			Help: "score the analysis against labelled case folders", Run: runEval},
		{Name: "enrich", Args: "[--store URL] [--json] --alert FILE",
			Help: "print the Slack message an alert would get", Run: runEnrich},
		{Name: "dlq", Args: "list|show|resend [--store URL] [--json] [ID... | --all]",
			Help: "list, show or resend the Slack messages alert enrichment could not deliver", Run: runDLQ},
		{Name: "mcp", Args: "[--store URL] [--timeout 60s]",
			Help: "serve the incident, trace, runbook and patterns tools to an assistant (MCP over stdio)", Run: runMCP},
		{Name: "serve", Args: "[--store URL] [--listen :8080] [--auth-token T] [--hook-token T] [--public-url URL]",
			Help: "web UI, JSON API and alert webhooks", Run: runServe},
		{Name: "demo", Args: "[--fault KIND] [--seed N] [--store PATH]",
			Help: "simulate an incident, load it into a fresh embedded store and analyse it", Run: runDemo},
	}
}

func program() *cli.Program {
	return &cli.Program{Name: "analyze", Commands: commands(), Notes: []string{
		"The store is --store URL, else $FAULTLINE_STORE, else ./faultline.db.",
		"Each command's flags: analyze COMMAND -h.",
	}}
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return program().Run(ctx, args, stdin, stdout, stderr)
}

func truncate(s string, n int) string { return cli.Truncate(s, n) }

// cpuProfile writes a CPU profile of the whole command to path when it is
// set (FAULTLINE_CPU_PROFILE), for a user reporting a slow analysis; the
// returned function ends it.
func cpuProfile(path string, stderr io.Writer) func() {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(stderr, "analyze: FAULTLINE_CPU_PROFILE: %v\n", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

// memProfile writes a heap profile (what the command allocated, and what
// it still held at its end) to path when it is set (FAULTLINE_MEM_PROFILE).
func memProfile(path string, stderr io.Writer) {
	if path == "" {
		return
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.Lookup("allocs").WriteTo(f, 0)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "analyze: FAULTLINE_MEM_PROFILE: %v\n", err)
	}
}
