package main

import (
	"context"
	"fmt"
)

func runDemo(ctx context.Context, e *env, args []string) int {
	fmt.Fprintln(e.stderr, "analyze demo: not built yet.")
	return exitFail
}
