package rootcause_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/sim"
	"github.com/faultline/faultline/store/sqlite"
)

// BenchmarkAnalyzeStore ranks a simulated incident whose callers' breakers
// open on a slow third-party API (about 110k records, 10 minutes of window
// after 15 of baseline) from the embedded store, as analyze incident does:
// the reads, and the store rules that follow each breaker to the traces
// that tripped it.
func BenchmarkAnalyzeStore(b *testing.B) {
	ctx := context.Background()
	inc, err := sim.Generate(sim.Config{Seed: 1, Fault: schema.KindDependencyTimeout,
		Baseline: 15 * time.Minute, Window: 10 * time.Minute, TracesPerSecond: 4})
	if err != nil {
		b.Fatal(err)
	}
	st, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "s.db"), sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	if err := st.WriteBatch(ctx, inc.Records); err != nil {
		b.Fatal(err)
	}
	q := rootcause.Query{From: inc.Truth.Window.From, To: inc.Truth.Window.To}
	b.ResetTimer()
	for range b.N {
		rep, err := rootcause.Analyze(ctx, st, q, rootcause.Options{})
		if err != nil || len(rep.Candidates) == 0 {
			b.Fatalf("no candidates: %v", err)
		}
	}
	b.ReportMetric(float64(len(inc.Records)), "records")
}
