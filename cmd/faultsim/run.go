package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/faultline/faultline/sim"
)

// errReported is a usage error the flag package has already printed.
var errReported = errors.New("bad usage")

// options are the command's flags.
type options struct {
	out      string
	cases    int
	seed     int64
	fault    string
	topology string
	tps      float64
	services int
	window   time.Duration
	baseline time.Duration
}

func parse(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("faultsim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.out, "out", "", "directory to write the case folders into (required)")
	fs.IntVar(&o.cases, "cases", 8, "number of cases")
	fs.Int64Var(&o.seed, "seed", 1, "seed of the first case; case i uses seed+i")
	fs.StringVar(&o.fault, "fault", "", fmt.Sprintf("fault of every case: a kind, one of %v, or a fault type, one of %v (default: the topology's faults in turn)", sim.FaultKinds(), faultTypes()))
	fs.StringVar(&o.topology, "topology", "shop", fmt.Sprintf("system shape, one of %v, a seed system, one of %v, several separated by commas to take each in turn, or all for every one", sim.Topologies(), sim.SeedTopologies()))
	fs.Float64Var(&o.tps, "tps", 0, "requests per second at the entry points (default 4)")
	fs.IntVar(&o.services, "services", 0, "business services per system, 3 to 40 (default: 7 to 13 from the seed)")
	fs.DurationVar(&o.window, "window", 0, "incident window (default 10m)")
	fs.DurationVar(&o.baseline, "baseline", 0, "fault-free traffic before the window (default 15m)")
	if err := fs.Parse(args); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			err = errReported
		}
		return o, err
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected argument %q; all options are flags", fs.Arg(0))
	case o.out == "":
		return o, errors.New("-out DIR is required: the directory to write the case folders into")
	case o.cases < 1:
		return o, errors.New("-cases must be at least 1")
	}
	for _, t := range o.topologies() {
		if !slices.Contains(sim.AllTopologies(), t) {
			return o, fmt.Errorf("-topology %q is not one of %v or all", t, sim.AllTopologies())
		}
	}
	if _, ok := sim.FaultNamed(o.fault); o.fault != "" && !ok {
		return o, fmt.Errorf("-fault %q is not a kind (%v) nor a fault type (%v)", o.fault, sim.FaultKinds(), faultTypes())
	}
	return o, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parse(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if errors.Is(err, errReported) {
		return exitUsage
	}
	if err != nil {
		fmt.Fprintf(stderr, "faultsim: %v\n", err)
		return exitUsage
	}
	topologies := o.topologies()
	for i := 0; i < o.cases; i++ {
		if ctx.Err() != nil {
			fmt.Fprintln(stderr, "faultsim: interrupted.")
			return exitFail
		}
		cfg := sim.Config{Seed: o.seed + int64(i), Topology: topologies[i%len(topologies)],
			TracesPerSecond: o.tps, Window: o.window, Baseline: o.baseline, Services: o.services}
		f, _ := sim.FaultNamed(o.fault)
		if o.fault == "" {
			faults := sim.TopologyFaults(cfg.Topology)
			k := i
			if slices.Contains(sim.SeedTopologies(), cfg.Topology) {
				// A seed system's own faults in turn over its own cases
				// (the others keep the order they always had).
				k = i / len(topologies)
			}
			f = faults[k%len(faults)]
		}
		cfg.Fault, cfg.FaultType = f.Kind, f.Type
		if code := writeCase(cfg, o.out, stdout, stderr); code != exitOK {
			return code
		}
	}
	return exitOK
}

// topologies are the topologies the cases take in turn.
func (o options) topologies() []string {
	if o.topology == "all" {
		return sim.AllTopologies()
	}
	return strings.Split(o.topology, ",")
}

func writeCase(cfg sim.Config, out string, stdout, stderr io.Writer) int {
	inc, err := sim.Generate(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "faultsim: %v\n", err)
		return exitUsage
	}
	dir := filepath.Join(out, inc.Truth.Scenario)
	if err := inc.WriteCase(dir); err != nil {
		fmt.Fprintf(stderr, "faultsim: %v; check that %s is writable.\n", err, out)
		return exitFail
	}
	fmt.Fprintf(stdout, "%s\t%d records\t%d failed traces\troot cause %s (%s, %s)\n", dir, len(inc.Records),
		len(inc.Truth.FailedTraces), inc.Truth.RootCause.Service, inc.Truth.RootCause.Kind, inc.Truth.RootCause.FaultType)
	return exitOK
}

// faultTypes lists the fault types of sim.Faults, then the seed systems' own.
func faultTypes() []string {
	var out []string
	for _, f := range sim.Faults() {
		out = append(out, f.Type)
	}
	for _, topo := range sim.SeedTopologies() {
		for _, f := range sim.TopologyFaults(topo) {
			out = append(out, f.Type)
		}
	}
	return out
}
