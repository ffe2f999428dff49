package main

import (
	"context"
	"fmt"
)

func runEnrich(ctx context.Context, e *env, args []string) int {
	fmt.Fprintln(e.stderr, "analyze enrich: not built yet.")
	return exitFail
}
