package main

import (
	"context"
	"fmt"
)

func runEval(ctx context.Context, e *env, args []string) int {
	fmt.Fprintln(e.stderr, "analyze eval: not built yet.")
	return exitFail
}
