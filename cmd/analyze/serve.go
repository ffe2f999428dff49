package main

import (
	"context"
	"fmt"
)

func runServe(ctx context.Context, e *env, args []string) int {
	fmt.Fprintln(e.stderr, "analyze serve: not built yet.")
	return exitFail
}
