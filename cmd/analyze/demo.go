package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/faultline/faultline/correlate"
	"github.com/faultline/faultline/evaluate"
	"github.com/faultline/faultline/internal/cli"
	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/runbookgen"
	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/sim"
	"github.com/faultline/faultline/store"
	"github.com/faultline/faultline/store/sqlite"
)

type demoFlags struct {
	storeFlags
	fault  string
	seed   int64
	system string
}

// runDemo simulates an incident that ended a minute ago, writes it as files
// in the contract's input formats, loads them through the real ingest path
// into a fresh embedded store, and shows what an on-call engineer would run.
func runDemo(ctx context.Context, e *env, args []string) int {
	var f demoFlags
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(e.Stderr)
	f.bind(fs, e)
	f.bindMemory(fs)
	fs.StringVar(&f.fault, "fault", "", "fault to simulate instead of the demo's slow third-party API: a kind, "+
		kindList(sim.FaultKinds())+", or a variant, "+faultTypeList())
	fs.Int64Var(&f.seed, "seed", 0, "simulation seed instead of the demo's")
	fs.StringVar(&f.system, "system", "", "simulate one of the seed systems instead of the demo's shop: "+strings.Join(sim.Systems(), ", "))
	pos, err := parseFlags(fs, args)
	if err == nil && len(pos) > 0 {
		err = badUsage("demo takes no arguments")
	}
	if _, ok := sim.FaultNamed(f.fault); err == nil && f.fault != "" && !ok {
		err = badUsage("--fault %q is not one of %s, nor a variant: %s", truncate(f.fault, 40), kindList(sim.FaultKinds()), faultTypeList())
	}
	if _, ok := sim.SystemTopology(f.system); err == nil && f.system != "" && !ok {
		err = badUsage("--system %q is not one of %s", truncate(f.system, 40), strings.Join(sim.Systems(), ", "))
	}
	if err != nil {
		return fail(e, "demo", err)
	}
	if !flagSet(fs, "store") {
		f.url = demoStore
	}
	f.create = true
	if err := demo(ctx, e, &f); err != nil {
		return fail(e, "demo", err)
	}
	return exitOK
}

// demoStore is where analyze demo puts its store when --store is not given.
const demoStore = "faultline-demo.db"

// withDemoHint adds to a store that is not there, when the demo's store is
// in the working folder, how to read that one: a new user runs analyze
// demo, then the README's analyze incident --since 30m, whose default
// store is another file.
func withDemoHint(url string, err error) error {
	if !errors.Is(err, store.ErrNoStore) || filepath.Clean(url) == demoStore {
		return err
	}
	if fi, serr := os.Stat(demoStore); serr != nil || !fi.Mode().IsRegular() {
		return err
	}
	return fmt.Errorf("%w; the demo's store is %s here: add --store %s", err, demoStore, demoStore)
}

func demo(ctx context.Context, e *env, f *demoFlags) error {
	cfg := sim.DemoConfig(time.Now().UTC().Add(-time.Minute))
	if sc, ok := sim.SystemDemoConfig(f.system, time.Now().UTC().Add(-time.Minute)); ok {
		cfg = sc
	}
	if sf, ok := sim.FaultNamed(f.fault); ok {
		cfg.Fault, cfg.FaultType = sf.Kind, sf.Type
	}
	if f.seed != 0 {
		cfg.Seed = f.seed
	}
	inc, err := sim.Generate(cfg)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "faultline-demo-")
	if err != nil {
		return fmt.Errorf("cannot make a temporary folder: %w", err)
	}
	defer os.RemoveAll(dir)
	if err := inc.WriteCase(dir); err != nil {
		return err
	}
	c, err := evaluate.LoadCase(dir)
	if err != nil {
		return err
	}
	if err := freshDemoStore(ctx, f.url); err != nil {
		return err
	}
	// The files go once loaded; a reader of the README ("writes it as
	// files in the input formats") is told where to get such files to keep.
	fmt.Fprintf(e.Stdout, "Simulated %d records (%s) across %d files in a temporary folder (faultsim -out DIR writes such files to keep); "+
		"loading them into %s through the ingest path…\n\n",
		len(inc.Records), c.Truth.RootCause.Kind, len(c.Files), cli.TerminalSafe(f.url))
	eng, closeFn, err := f.engine(ctx, false, logger(e))
	if err != nil {
		return err
	}
	defer closeFn()
	if err := eng.Store.PutDoc(ctx, demoDocKind, demoDocID, []byte(`{"demo":true}`)); err != nil {
		return err
	}
	if err := evaluate.LoadFiles(ctx, eng.Store, c.Files, logger(e)); err != nil {
		return err
	}
	rep, err := eng.Incident(ctx, rootcause.Query{From: c.Truth.Window.From, To: c.Truth.Window.To, Top: 3})
	if err != nil {
		return err
	}
	st := storeArg(f.url)
	win := "--from " + c.Truth.Window.From.Format(time.RFC3339) + " --to " + c.Truth.Window.To.Format(time.RFC3339)
	fmt.Fprintf(e.Stdout, "$ analyze incident --store %s %s\n\n", st, win)
	if err := writeIncident(e.Stdout, rep, " --store "+st); err != nil {
		return err
	}
	next := demoNext{store: st, window: win, from: c.Truth.Window.From, to: c.Truth.Window.To}
	if len(rep.Candidates) > 0 {
		top := rep.Candidates[0]
		if top.Runbook != nil {
			next.runbook = top.Runbook.ID
		}
		if len(top.ExampleTraces) > 0 {
			next.trace = string(top.ExampleTraces[0])
			res, err := eng.Trace(ctx, top.ExampleTraces[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(e.Stdout, "\n$ analyze trace --store %s %s\n\n", st, next.trace)
			tw := &terminalWriter{w: e.Stdout}
			if err := correlate.WriteText(tw, res); err != nil {
				return err
			}
			if err := tw.flush(); err != nil {
				return err
			}
			if err := writeTraceRunbook(e.Stdout, res, " --store "+st); err != nil {
				return err
			}
		}
	}
	verdict := "did not rank it in the top 3"
	for _, cand := range rep.Candidates {
		if cand.Service == c.Truth.RootCause.Service {
			verdict = fmt.Sprintf("ranked it #%d", cand.Rank)
			break
		}
	}
	fmt.Fprintf(e.Stdout, "\nThe simulator injected %s into %s at %s; faultline %s.\n",
		c.Truth.RootCause.Kind, cli.TerminalSafe(c.Truth.RootCause.Service), c.Truth.Onset.Format("15:04:05"), verdict)
	next.write(e.Stdout)
	return nil
}

// demoListen is where the demo tells analyze serve to listen.
const demoListen = "localhost:8080"

// demoNext is what the demo ends with: the commands to go on with, as
// they run (the demo's store named), and the web UI's exact links.
type demoNext struct {
	store, window  string
	from, to       time.Time
	trace, runbook string
}

func (n demoNext) write(w io.Writer) {
	fmt.Fprintf(w, "\nNext, on the demo's store (these run as printed):\n")
	if n.runbook != "" {
		fmt.Fprintf(w, "  analyze runbook --store %s %s   # what to do, first five minutes\n", n.store, n.runbook)
	}
	if n.trace != "" {
		fmt.Fprintf(w, "  analyze trace --store %s %s\n", n.store, n.trace)
	}
	fmt.Fprintf(w, "  analyze incident --store %s %s\n", n.store, n.window)
	fmt.Fprintf(w, "  analyze serve --store %s --listen %s   # the web UI; then open:\n", n.store, demoListen)
	base := "http://" + demoListen
	// RFC 3339 in UTC needs no escaping in a query: the link reads as written.
	fmt.Fprintf(w, "      %s/incident?from=%s&to=%s\n", base, n.from.UTC().Format(time.RFC3339), n.to.UTC().Format(time.RFC3339))
	if n.trace != "" {
		t := base + "/trace/" + n.trace
		if n.runbook != "" {
			t += "?runbook=" + n.runbook
		}
		fmt.Fprintf(w, "      %s\n", t)
	}
	if n.runbook != "" {
		fmt.Fprintf(w, "      %s/runbooks/%s\n", base, n.runbook)
	}
}

// storeArg is a store path as a command line gives it, from any folder
// (runbookgen.StoreFlag: absolute, quoted for the shell when it must be),
// control characters shown as escapes.
func storeArg(path string) string {
	return cli.TerminalSafe(strings.TrimPrefix(runbookgen.StoreFlag(path), " --store "))
}

// The document that marks a store as the demo's, so that a second run may
// replace it and nothing else is ever overwritten.
const (
	demoDocKind = "faultline"
	demoDocID   = "demo-store"
)

// freshDemoStore removes a previous demo store at path; any other file
// there is refused, and so is a demo store that another process (an
// analyze serve) has open, since removing it would pull the database out
// from under that process.
func freshDemoStore(ctx context.Context, path string) error {
	if _, err := os.Stat(path); os.IsNotExist(err) {
		return nil
	}
	st, err := store.Open(ctx, path, store.Options{ReadOnly: true})
	if err == nil {
		_, err = st.GetDoc(ctx, demoDocKind, demoDocID)
		st.Close()
	}
	if err != nil {
		return badUsage("%q exists and is not a demo store; refusing to overwrite it (remove it or give --store another path)", truncate(path, 80))
	}
	// Only now that this process has closed it can InUse tell.
	inUse, err := sqlite.InUse(path)
	if err != nil {
		return err
	}
	if inUse {
		return badUsage("the store %q is open in another process (analyze serve?); stop it or pick another --store", truncate(path, 80))
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("cannot replace the demo store at %q: %w", path, err)
		}
	}
	return nil
}

// faultTypeList names the simulator's fault variants.
func faultTypeList() string {
	var names []string
	for _, f := range sim.Faults() {
		names = append(names, f.Type)
	}
	return strings.Join(names, ", ")
}

func kindList(ks []schema.Kind) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
