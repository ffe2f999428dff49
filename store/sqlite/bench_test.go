package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store/sqlite"
	"github.com/faultline/faultline/store/storetest"
)

// The benchmark store: built once in /tmp and reused across runs. Bump
// benchStoreVersion when the generator changes; the schema version is part
// of the name too.
const (
	benchStoreVersion = 3
	benchRecords      = 5_000_000
	benchSeed         = 42
	benchStep         = 1200 * time.Microsecond // 5M records over 100 minutes
)

func benchBase() time.Time { return time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC) }

func benchPath() string {
	return filepath.Join(os.TempDir(), "faultline-bench",
		fmt.Sprintf("store-v%d-s%d-%d.db", benchStoreVersion, sqlite.SchemaVersion(), benchRecords))
}

// benchStore returns the path of the 5M-record store, building it when
// missing (several minutes, once), and its generator, run to the end so
// that it knows the trace ids (when replay is set, or after a build).
func benchStore(b *testing.B, replay bool) (string, *storetest.Synth) {
	path := benchPath()
	synth := storetest.NewSynth(benchSeed, benchBase(), benchStep)
	if _, err := os.Stat(path); err == nil {
		for replay && synth.Emitted() < benchRecords {
			synth.Batch(10_000)
		}
		return path, synth
	}
	b.Logf("building %s (once)", path)
	if err := buildStore(b.Context(), path, synth); err != nil {
		b.Fatal(err)
	}
	return path, synth
}

func buildStore(ctx context.Context, path string, synth *storetest.Synth) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".building"
	for _, suffix := range []string{"", "-wal", "-shm"} {
		_ = os.Remove(tmp + suffix)
	}
	db, err := sqlite.Open(ctx, tmp, sqlite.Options{Durability: sqlite.DurabilityProcess})
	if err != nil {
		return err
	}
	for synth.Emitted() < benchRecords {
		if err := db.WriteBatch(ctx, synth.Batch(10_000)); err != nil {
			return errors.Join(err, db.Close())
		}
	}
	if err := db.Close(); err != nil {
		return err
	}
	if _, err := os.Stat(tmp + "-wal"); err == nil {
		return fmt.Errorf("%s-wal is still there after Close", tmp)
	}
	return os.Rename(tmp, path)
}

func BenchmarkWriteBatch(b *testing.B) {
	for _, d := range []struct {
		name string
		dur  sqlite.Durability
	}{{"full", sqlite.DurabilityFull}, {"process", sqlite.DurabilityProcess}} {
		b.Run(d.name, func(b *testing.B) {
			db, err := sqlite.Open(b.Context(), filepath.Join(b.TempDir(), "w.db"), sqlite.Options{Durability: d.dur})
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			synth := storetest.NewSynth(1, benchBase(), benchStep)
			batches := make([][]schema.Record, 64)
			for i := range batches {
				batches[i] = synth.Batch(1000)
			}
			b.SetBytes(payloadBytes(batches[0]))
			b.ReportAllocs()
			resetPeakRSS()
			cpu0 := cpuTime()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				if err := db.WriteBatch(b.Context(), batches[i%len(batches)]); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*1000)/b.Elapsed().Seconds(), "records/s")
			reportCPU(b, cpu0)
			reportPeakRSS(b)
		})
	}
}

// BenchmarkWriteConcurrent has 8 goroutines write batches of 250, as
// concurrent HTTP pushes do; group commit merges them into transactions.
func BenchmarkWriteConcurrent(b *testing.B) {
	db, err := sqlite.Open(b.Context(), filepath.Join(b.TempDir(), "w.db"), sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	synth := storetest.NewSynth(1, benchBase(), benchStep)
	batches := make([][]schema.Record, 256)
	for i := range batches {
		batches[i] = synth.Batch(250)
	}
	b.SetBytes(payloadBytes(batches[0]))
	b.SetParallelism(4) // 4 x GOMAXPROCS goroutines
	resetPeakRSS()
	cpu0 := cpuTime()
	b.ResetTimer()
	var next atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := db.WriteBatch(b.Context(), batches[next.Add(1)%int64(len(batches))]); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N*250)/b.Elapsed().Seconds(), "records/s")
	reportCPU(b, cpu0)
	reportPeakRSS(b)
}

// BenchmarkDeleteBefore measures retention: each op deletes the older
// half of a 100,000-record store, in its chunked transactions.
func BenchmarkDeleteBefore(b *testing.B) {
	base := benchBase()
	cpu := time.Duration(0)
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		db, err := sqlite.Open(b.Context(), filepath.Join(b.TempDir(), fmt.Sprintf("d%d.db", i)), sqlite.Options{})
		if err != nil {
			b.Fatal(err)
		}
		synth := storetest.NewSynth(uint64(i), base, time.Millisecond)
		for range 10 {
			if err := db.WriteBatch(b.Context(), synth.Batch(10_000)); err != nil {
				b.Fatal(err)
			}
		}
		cpu0 := cpuTime()
		b.StartTimer()
		n, err := db.DeleteBefore(b.Context(), base.Add(50_000*time.Millisecond))
		b.StopTimer()
		cpu += cpuTime() - cpu0
		if err != nil || n < 49_000 || n > 51_000 {
			b.Fatalf("DeleteBefore: %d, %v", n, err)
		}
		if err := db.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(b.N*50_000)/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
}

// payloadBytes approximates the size of recs as logs: bodies, names,
// services and attributes.
func payloadBytes(recs []schema.Record) int64 {
	var n int
	for _, r := range recs {
		n += len(r.Body) + len(r.Service) + len(r.Name) + len(r.TraceID) + len(r.SpanID) + 30
		for k, v := range r.Attrs {
			n += len(k) + len(v)
		}
	}
	return int64(n)
}

func BenchmarkTraceRecords(b *testing.B) {
	path, synth := benchStore(b, true)
	db, err := sqlite.Open(b.Context(), path, sqlite.Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	rng := rand.New(rand.NewPCG(7, 7))
	// Traces still in flight when the generator stopped are partial: skip them.
	complete := synth.Started() - 2*256
	records := 0
	resetPeakRSS()
	cpu0 := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		id := synth.TraceID(rng.IntN(complete))
		n := 0
		for _, err := range db.TraceRecords(b.Context(), id, 0) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n == 0 {
			b.Fatalf("trace %s has no records", id)
		}
		records += n
	}
	b.ReportMetric(float64(records)/float64(b.N), "records/op")
	reportCPU(b, cpu0)
	reportPeakRSS(b)
}

// BenchmarkTraceOpen is what `analyze trace` does in a new process: open
// the 5M-record store read-only, read one trace, close.
func BenchmarkTraceOpen(b *testing.B) {
	path, synth := benchStore(b, true)
	rng := rand.New(rand.NewPCG(8, 8))
	complete := synth.Started() - 2*256
	cpu0 := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		db, err := sqlite.Open(b.Context(), path, sqlite.Options{ReadOnly: true})
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for _, err := range db.TraceRecords(b.Context(), synth.TraceID(rng.IntN(complete)), 0) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if err := db.Close(); err != nil || n == 0 {
			b.Fatalf("close: %v; %d records", err, n)
		}
	}
	reportCPU(b, cpu0)
}

func BenchmarkWindowRecords(b *testing.B) {
	path, _ := benchStore(b, false)
	db, err := sqlite.Open(b.Context(), path, sqlite.Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	from := benchBase()
	to := from.Add(1_000_000 * benchStep) // about 1M records
	for _, c := range []struct {
		name string
		q    schema.WindowQuery
	}{
		{"all-1M", schema.WindowQuery{From: from, To: to}},
		{"errors-only", schema.WindowQuery{From: from, To: to, ErrorsOnly: true}},
		{"one-service", schema.WindowQuery{From: from, To: to, Service: "payments"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			records := 0
			resetPeakRSS()
			b.ReportAllocs()
			cpu0 := cpuTime()
			b.ResetTimer()
			for b.Loop() {
				n := 0
				for _, err := range db.WindowRecords(b.Context(), c.q) {
					if err != nil {
						b.Fatal(err)
					}
					n++
				}
				records += n
			}
			b.ReportMetric(float64(records)/float64(b.N), "records/op")
			b.ReportMetric(float64(records)/b.Elapsed().Seconds(), "records/s")
			reportCPU(b, cpu0)
			reportPeakRSS(b)
		})
	}
}

// resetPeakRSS resets the kernel's high-water mark of this process's
// resident set (Linux; elsewhere a no-op).
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// reportPeakRSS reports VmHWM, the peak resident set since the last reset.
func reportPeakRSS(b *testing.B) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			if err == nil {
				b.ReportMetric(float64(kb)/1024, "peakRSS-MB")
			}
		}
	}
}

// cpuTime is the user plus system CPU time this process has used. On a
// shared machine it measures the work better than wall time does.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU time per operation since cpu0 (all threads:
// with background work such as GC it can exceed wall time).
func reportCPU(b *testing.B, cpu0 time.Duration) {
	b.ReportMetric(float64((cpuTime()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
}
