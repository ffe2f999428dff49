// Command faultsim writes simulated incidents as case folders with
// truth.json, for `analyze eval` and for tests:
//
//	faultsim -out DIR [-cases N] [-seed S] [-fault KIND|TYPE]
//	         [-topology shop|jobqueue|edge|routing|jobclaim|triage|payment|LIST|all]
//	         [-tps R] [-services N] [-window D] [-baseline D]
//
// Case i gets seed S+i and, without -fault, its topology's faults in turn
// (sim.TopologyFaults): in the generic shapes (shop, jobqueue, edge) the
// faults of sim.Faults, every kind's first variant, then the silent
// variants (silent-db, silent-api, silent-deploy); in a seed system
// (routing, jobclaim, triage, payment) the faults its seed document tells
// of. -fault takes a kind (its first variant) or a fault type, a seed
// system's only in that system. -topology all gives case i the topologies
// in turn (sim.AllTopologies: shop, jobqueue, edge, then the seed systems);
// a list separated by commas (shop,jobqueue,edge) gives those in turn.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// Exit codes.
const (
	exitOK    = 0
	exitFail  = 1 // a failure while working (cannot write)
	exitUsage = 2 // bad usage
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
