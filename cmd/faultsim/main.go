// Command faultsim writes simulated incidents as case folders with
// truth.json, for `analyze eval` and for tests:
//
//	faultsim -out DIR [-cases N] [-seed S] [-fault KIND|TYPE] [-topology shop|jobqueue|edge|all]
//	         [-tps R] [-services N] [-window D] [-baseline D]
//
// Case i gets seed S+i and, without -fault, the faults of sim.Faults in
// turn: every kind's first variant, then the silent variants (silent-db,
// silent-api, silent-deploy). -fault takes a kind (its first variant) or a
// fault type. -topology all gives case i the topologies in turn (shop,
// jobqueue, edge).
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
