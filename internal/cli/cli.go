// Package cli is what faultline's two programs share on the command line:
// the exit codes of the contract, the environment a subcommand may touch,
// and dispatch over a table of subcommands.
package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
)

// Exit codes, per the contract.
const (
	ExitOK    = 0
	ExitFail  = 1 // a failure while working: store unreachable, ...
	ExitUsage = 2 // bad usage or bad input
)

// Env is what a subcommand may touch: its streams and the environment.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
}

// Command is one subcommand; each program lists its own.
type Command struct {
	Name, Args, Help string
	Run              func(ctx context.Context, e *Env, args []string) int
}

// Program is a program's name, its subcommands and the notes printed
// under their list in the usage.
type Program struct {
	Name     string
	Commands []Command
	Notes    []string
}

// Run dispatches args to the subcommand they name. No arguments print the
// usage and exit 2; help, -h and --help print it and exit 0; --version
// (and version) prints the program's version on stdout and exits 0.
func (p *Program) Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &Env{Stdin: stdin, Stdout: stdout, Stderr: stderr, Getenv: os.Getenv}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		p.Usage(stderr)
		if len(args) == 0 {
			return ExitUsage
		}
		return ExitOK
	}
	if args[0] == "--version" || args[0] == "-version" || args[0] == "version" {
		fmt.Fprintln(stdout, p.Name, Version())
		return ExitOK
	}
	for _, c := range p.Commands {
		if c.Name == args[0] {
			return c.Run(ctx, e, args[1:])
		}
	}
	fmt.Fprintf(stderr, "%s: unknown command %q; run '%s help' for the list.\n", p.Name, Truncate(args[0], 40), p.Name)
	return ExitUsage
}

// Usage prints the list of subcommands.
func (p *Program) Usage(w io.Writer) {
	fmt.Fprintf(w, "usage: %s COMMAND [flags] [args]\n\n", p.Name)
	width := 0
	for _, c := range p.Commands {
		width = max(width, len(c.Name))
	}
	for _, c := range p.Commands {
		fmt.Fprintf(w, "  %-*s %s\n  %*s %s\n", width, c.Name, c.Args, width, "", c.Help)
	}
	fmt.Fprintf(w, "\n%s --version prints the version.\n", p.Name)
	if len(p.Notes) > 0 {
		fmt.Fprintln(w)
	}
	for _, n := range p.Notes {
		fmt.Fprintln(w, n)
	}
}

// Truncate cuts s to n bytes (on a rune boundary) and marks the cut.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// Version describes the build: the module version (a release tag, or
// "(devel)" for a build from a checkout), the commit and its time when the
// build recorded them (and "modified" for uncommitted changes), and Go's
// version.
func Version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown (no build information) " + runtime.Version()
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, at, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value[:min(len(s.Value), 12)]
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = ", modified"
			}
		}
	}
	if rev != "" {
		v += " (commit " + rev
		if at != "" {
			v += " of " + at
		}
		v += dirty + ")"
	}
	return v + " " + runtime.Version()
}
