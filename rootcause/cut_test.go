package rootcause_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/sim"
)

// TestWindowCutIsTold: a window holding more records than the limit is
// read oldest first, so its newest part is left out; the report says so,
// naming what was left out, and says nothing when the window fits.
func TestWindowCutIsTold(t *testing.T) {
	ctx := context.Background()
	db, q := simStore(t, sim.Config{Seed: 91, Fault: sim.FaultKinds()[0], Baseline: 3 * time.Minute,
		Window: 3 * time.Minute, TracesPerSecond: 2})
	whole, err := rootcause.Analyze(ctx, db, q, rootcause.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range whole.Warnings {
		if strings.Contains(w, "is not in this analysis") {
			t.Fatalf("a window that fits is reported cut: %q", w)
		}
	}
	cut, err := rootcause.Analyze(ctx, db, q, rootcause.Options{Limit: 200})
	if err != nil {
		t.Fatal(err)
	}
	found := ""
	for _, w := range cut.Warnings {
		if strings.Contains(w, "more than 200 records") && strings.Contains(w, "is not in this analysis") &&
			strings.Contains(w, q.To.UTC().Format(time.RFC3339)) {
			found = w
		}
	}
	if found == "" {
		t.Fatalf("a window cut at 200 records is not told: warnings %q", cut.Warnings)
	}
}
