package main

import (
	"context"
	"fmt"
)

func runTrace(ctx context.Context, e *env, args []string) int {
	fmt.Fprintln(e.stderr, "analyze trace: not built yet.")
	return exitFail
}
