package main

import (
	"context"
	"fmt"
)

func runRunbook(ctx context.Context, e *env, args []string) int {
	fmt.Fprintln(e.stderr, "analyze runbook: not built yet.")
	return exitFail
}
