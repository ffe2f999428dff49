package clickhouse_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store"
	"github.com/faultline/faultline/store/sqlite"
)

// The same benchmarks on the embedded store, on the same generated data,
// for the comparison the issue asks for.
var sqliteBench struct {
	once   sync.Once
	dir    string
	s      *sqlite.DB
	traces []schema.TraceID
	base   time.Time
	err    error
}

func sqliteBenchStore(b *testing.B) (store.Store, []schema.TraceID, time.Time) {
	d := &sqliteBench
	d.once.Do(func() {
		d.base = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
		d.dir, d.err = os.MkdirTemp("", "faultline-bench-sqlite-")
		if d.err != nil {
			return
		}
		d.s, d.err = sqlite.Open(b.Context(), filepath.Join(d.dir, "bench.db"), sqlite.Options{})
		if d.err != nil {
			return
		}
		n := benchRecords()
		r := rand.New(rand.NewPCG(1, 2))
		slice := time.Hour / time.Duration((n+99_999)/100_000)
		t0 := time.Now()
		for done := 0; done < n && d.err == nil; done += 100_000 {
			recs, ids := genBatch(r, d.base.Add(time.Duration(done/100_000)*slice), slice, min(100_000, n-done))
			d.traces = append(d.traces, ids...)
			d.err = d.s.WriteBatch(b.Context(), recs)
		}
		fmt.Fprintf(os.Stderr, "bench: loaded %d records into SQLite in %v\n", n, time.Since(t0))
	})
	if d.err != nil {
		b.Fatal(d.err)
	}
	return d.s, d.traces, d.base
}

func BenchmarkSQLiteWriteBatch(b *testing.B) {
	s, err := sqlite.Open(b.Context(), filepath.Join(b.TempDir(), "w.db"), sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	recs, _ := genBatch(rand.New(rand.NewPCG(3, 4)), time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC), time.Hour, 10_000)
	for b.Loop() {
		if err := s.WriteBatch(b.Context(), recs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(recs))/b.Elapsed().Seconds(), "records/s")
}

func BenchmarkSQLiteTraceRecords(b *testing.B) {
	s, traces, _ := sqliteBenchStore(b)
	r := rand.New(rand.NewPCG(5, 6))
	for b.Loop() {
		for _, err := range s.TraceRecords(b.Context(), traces[r.IntN(len(traces))], 0) {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkSQLiteWindowErrors(b *testing.B) {
	s, _, base := sqliteBenchStore(b)
	r := rand.New(rand.NewPCG(7, 8))
	total := 0
	for b.Loop() {
		from := base.Add(time.Duration(r.IntN(55)) * time.Minute)
		for _, err := range s.WindowRecords(b.Context(), schema.WindowQuery{From: from, To: from.Add(5 * time.Minute), ErrorsOnly: true}) {
			if err != nil {
				b.Fatal(err)
			}
			total++
		}
	}
	b.ReportMetric(float64(total)/float64(b.N), "records/op")
}

// cleanupBench removes the SQLite benchmark store.
func cleanupBench() {
	if d := &sqliteBench; d.dir != "" {
		if d.s != nil {
			d.s.Close()
		}
		os.RemoveAll(d.dir)
	}
}
