package main

import (
	"context"
	"fmt"
)

func runIncident(ctx context.Context, e *env, args []string) int {
	fmt.Fprintln(e.stderr, "analyze incident: not built yet.")
	return exitFail
}
