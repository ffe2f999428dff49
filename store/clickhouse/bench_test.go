package clickhouse_test

import (
	crand "crypto/rand"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store/clickhouse"
)

// benchData is a store filled once for the read benchmarks:
// $FAULTLINE_BENCH_RECORDS records (default 1,000,000), 10 per trace,
// 1 in 20 an error, over one hour, written in time order.
var benchData struct {
	once   sync.Once
	s      *clickhouse.Store
	traces []schema.TraceID
	base   time.Time
	n      int
	err    error
}

func benchRecords() int {
	if n, err := strconv.Atoi(os.Getenv("FAULTLINE_BENCH_RECORDS")); err == nil && n > 0 {
		return n
	}
	return 1_000_000
}

var benchServices = []string{"checkout", "payments", "orders", "inventory", "users", "gateway", "search", "cart", "shipping", "email"}

// genBatch makes n records: traces of 10 records across services.
func genBatch(r *rand.Rand, base time.Time, span time.Duration, n int) ([]schema.Record, []schema.TraceID) {
	recs := make([]schema.Record, 0, n)
	var ids []schema.TraceID
	for len(recs) < n {
		var b [16]byte
		crand.Read(b[:])
		id := schema.TraceID(hex.EncodeToString(b[:]))
		ids = append(ids, id)
		t0 := base.Add(time.Duration(r.Int64N(int64(span))))
		for i := 0; i < 10 && len(recs) < n; i++ {
			svc := benchServices[r.IntN(len(benchServices))]
			rec := schema.Record{
				Time: t0.Add(time.Duration(i) * time.Millisecond), TraceID: id, Service: svc,
				SpanID: schema.SpanID(fmt.Sprintf("%016x", r.Uint64()|1)), Severity: schema.SeverityInfo, SeverityText: "INFO",
				Body:  fmt.Sprintf("handled request %d for user %d in %dms", r.IntN(1e6), r.IntN(1e5), r.IntN(500)),
				Attrs: map[string]string{"http.route": "/api/v1/" + svc, "host.name": svc + "-" + strconv.Itoa(r.IntN(8))},
			}
			if r.IntN(20) == 0 {
				rec.Severity, rec.SeverityText = schema.SeverityError, "ERROR"
				rec.Body = fmt.Sprintf("call to %s exceeded %dms", benchServices[r.IntN(len(benchServices))], 3000)
			}
			if i == 0 {
				rec.Type, rec.Name, rec.Duration = schema.TypeSpan, "GET /api/v1/"+svc, time.Duration(r.IntN(1e9))
				rec.Status = schema.StatusOK
				if rec.Severity == schema.SeverityError {
					rec.Status = schema.StatusError
				}
			}
			recs = append(recs, rec)
		}
	}
	return recs, ids
}

func benchStore(b *testing.B) (*clickhouse.Store, []schema.TraceID, time.Time) {
	front.Need(b)
	d := &benchData
	d.once.Do(func() {
		d.base, d.n = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC), benchRecords()
		d.s, d.err = clickhouse.Open(b.Context(), front.NewDatabase(&testing.T{}), clickhouse.Options{})
		if d.err != nil {
			return
		}
		r := rand.New(rand.NewPCG(1, 2))
		t0 := time.Now()
		// Batches arrive in time order, as from ingest: each covers its own
		// slice of the hour.
		slice := time.Hour / time.Duration((d.n+99_999)/100_000)
		for done := 0; done < d.n && d.err == nil; done += 100_000 {
			from := d.base.Add(time.Duration(done/100_000) * slice)
			recs, ids := genBatch(r, from, slice, min(100_000, d.n-done))
			d.traces = append(d.traces, ids...)
			d.err = d.s.WriteBatch(b.Context(), recs)
		}
		fmt.Fprintf(os.Stderr, "bench: loaded %d records in %v\n", d.n, time.Since(t0))
	})
	if d.err != nil {
		b.Fatal(d.err)
	}
	return d.s, d.traces, d.base
}

// BenchmarkWriteBatch is ingest throughput through clickhouse-go (HTTP,
// Native format) into the real engine: batches of 10,000 records.
func BenchmarkWriteBatch(b *testing.B) {
	s := openStore(b, front.NewDatabase(b), clickhouse.Options{})
	r := rand.New(rand.NewPCG(3, 4))
	recs, _ := genBatch(r, time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC), time.Hour, 10_000)
	b.ResetTimer()
	for b.Loop() {
		if err := s.WriteBatch(b.Context(), recs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(recs))/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkTraceRecords reads one whole trace (what analyze trace does).
func BenchmarkTraceRecords(b *testing.B) {
	s, traces, _ := benchStore(b)
	r := rand.New(rand.NewPCG(5, 6))
	b.ResetTimer()
	for b.Loop() {
		n := 0
		for _, err := range s.TraceRecords(b.Context(), traces[r.IntN(len(traces))], 0) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n == 0 {
			b.Fatal("empty trace")
		}
	}
}

// BenchmarkWindowErrors reads the alert records of a 5-minute window (what
// analyze incident starts with), from faultline_errors.
func BenchmarkWindowErrors(b *testing.B) {
	benchWindow(b, 7, 55, func(from time.Time) schema.WindowQuery {
		return schema.WindowQuery{From: from, To: from.Add(5 * time.Minute), ErrorsOnly: true}
	})
}

// BenchmarkWindowAll reads every record of a 1-minute window.
func BenchmarkWindowAll(b *testing.B) {
	benchWindow(b, 9, 59, func(from time.Time) schema.WindowQuery {
		return schema.WindowQuery{From: from, To: from.Add(time.Minute)}
	})
}

// BenchmarkWindowAllProjected reads the same windows asking for one
// attribute (WindowQuery.Attrs), as the incident analysis does: the server
// sends the other keys no more.
func BenchmarkWindowAllProjected(b *testing.B) {
	benchWindow(b, 9, 59, func(from time.Time) schema.WindowQuery {
		return schema.WindowQuery{From: from, To: from.Add(time.Minute), Attrs: []string{"http.route"}}
	})
}

// benchWindow reads the windows query makes from random starts (one of the
// first starts minutes of the bench hour, drawn with seed).
func benchWindow(b *testing.B, seed uint64, starts int, query func(from time.Time) schema.WindowQuery) {
	s, _, base := benchStore(b)
	r := rand.New(rand.NewPCG(seed, seed+1))
	b.ResetTimer()
	total := 0
	for b.Loop() {
		for _, err := range s.WindowRecords(b.Context(), query(base.Add(time.Duration(r.IntN(starts))*time.Minute))) {
			if err != nil {
				b.Fatal(err)
			}
			total++
		}
	}
	b.ReportMetric(float64(total)/float64(b.N), "records/op")
}

// BenchmarkFailingTracesRead names the failing traces of a 30-minute window
// as the analysis did before the server selected them: reading every alert
// record of it whole, newest first.
func BenchmarkFailingTracesRead(b *testing.B) {
	s, _, base := benchStore(b)
	b.ResetTimer()
	n := 0
	for b.Loop() {
		seen := map[schema.TraceID]bool{}
		for r, err := range s.WindowRecords(b.Context(), schema.WindowQuery{From: base, To: base.Add(30 * time.Minute), ErrorsOnly: true, Newest: true, Attrs: []string{}}) {
			if err != nil {
				b.Fatal(err)
			}
			if r.IsError() {
				seen[r.TraceID] = true
			}
		}
		n = len(seen)
	}
	b.ReportMetric(float64(n), "traces")
}

// BenchmarkFailingTracesSelected is the same, selected by the server
// (Store.FailingTraces): it sends the ids alone.
func BenchmarkFailingTracesSelected(b *testing.B) {
	s, _, base := benchStore(b)
	b.ResetTimer()
	n := 0
	for b.Loop() {
		ids, err := s.FailingTraces(b.Context(), base, base.Add(30*time.Minute), 0)
		if err != nil {
			b.Fatal(err)
		}
		n = len(ids)
	}
	b.ReportMetric(float64(n), "traces")
}
