package main

import (
	"context"
	"fmt"
)

func runPatterns(ctx context.Context, e *env, args []string) int {
	fmt.Fprintln(e.stderr, "analyze patterns: not built yet.")
	return exitFail
}
