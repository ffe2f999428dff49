package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/faultline/faultline/store/sqlite"
	"github.com/golang/snappy"
	"github.com/grafana/loki/pkg/push"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
)

var benchServices = []string{"gateway", "orders", "payments", "inventory", "db-proxy"}

// benchEvent is record i of a synthetic stream: a rotating service, one
// trace per 8 records, an error every 10th record.
func benchEvent(i int) (svc, level, trace, span, msg string, at time.Time) {
	svc = benchServices[i%len(benchServices)]
	level = "INFO"
	msg = fmt.Sprintf("handled request %d for user %d in %dms", i, i%977, i%300)
	if i%10 == 0 {
		level = "ERROR"
		msg = fmt.Sprintf("call to %s exceeded 3000ms (attempt %d)", benchServices[(i+1)%5], i%3)
	}
	return svc, level, fmt.Sprintf("%032x", i/8+1), fmt.Sprintf("%016x", i+1), msg, incidentBase.Add(time.Duration(i) * time.Millisecond)
}

func benchJSONL(n int) []byte {
	var buf bytes.Buffer
	for i := 0; i < n; i++ {
		svc, lvl, tr, sp, msg, at := benchEvent(i)
		b, _ := json.Marshal(map[string]any{"time": at.Format(time.RFC3339Nano), "level": lvl, "msg": msg,
			"trace_id": tr, "span_id": sp, "service": svc, "caller": "svc/handler.go:42"})
		buf.Write(b)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

func benchText(n int) []byte {
	var buf bytes.Buffer
	for i := 0; i < n; i++ {
		svc, lvl, tr, sp, msg, at := benchEvent(i)
		fmt.Fprintf(&buf, "%s %-5s c.e.%s#42 TraceID: %s SpanID: %s [%s]\n", at.Format("2006-01-02 15:04:05.000"), lvl, svc, tr, sp, msg)
	}
	return buf.Bytes()
}

func benchLokiProto(n int) []byte {
	streams := map[string]*push.Stream{}
	for i := 0; i < n; i++ {
		svc, lvl, tr, sp, msg, at := benchEvent(i)
		st := streams[svc]
		if st == nil {
			st = &push.Stream{Labels: fmt.Sprintf(`{service_name=%q}`, svc)}
			streams[svc] = st
		}
		st.Entries = append(st.Entries, push.Entry{Timestamp: at, Line: fmt.Sprintf("%s %s TraceID: %s SpanID: %s %s", at.Format("15:04:05.000"), lvl, tr, sp, msg)})
	}
	var req push.PushRequest
	for _, s := range benchServices {
		req.Streams = append(req.Streams, *streams[s])
	}
	raw, _ := req.Marshal()
	return snappy.Encode(nil, raw)
}

func benchOTLPLogs(n int) []byte {
	ld := plog.NewLogs()
	for i := 0; i < n; i++ {
		svc, lvl, tr, sp, msg, at := benchEvent(i)
		rl := ld.ResourceLogs().AppendEmpty()
		rl.Resource().Attributes().PutStr("service.name", svc)
		lr := rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
		lr.SetTimestamp(pcommon.NewTimestampFromTime(at))
		lr.SetSeverityText(lvl)
		lr.Body().SetStr(msg)
		lr.SetTraceID(pcommon.TraceID(mustHex16(tr)))
		lr.SetSpanID(pcommon.SpanID(mustHex8(sp)))
	}
	b, _ := plogotlp.NewExportRequestFromLogs(ld).MarshalProto()
	return b
}

// BenchmarkIngestHTTP posts batches of 5000 records per format to the real
// handlers in front of a real SQLite store and reports records/s; MB/s is
// of the body as sent.
func BenchmarkIngestHTTP(b *testing.B) {
	const n = 5000
	formats := []struct {
		name, path, ctype string
		body              []byte
		otlp              bool
	}{
		{"jsonl", "/ingest/jsonl", "application/x-ndjson", benchJSONL(n), false},
		{"loki-protobuf", "/loki/api/v1/push", "application/x-protobuf", benchLokiProto(n), false},
		{"otlp-logs-protobuf", "/v1/logs", "application/x-protobuf", benchOTLPLogs(n), true},
	}
	for _, f := range formats {
		b.Run(f.name, func(b *testing.B) {
			db, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"), sqlite.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			srv := NewServer(ServerConfig{}, db, nil)
			h := srv.Handler()
			if f.otlp {
				h = srv.OTLPHandler()
			}
			ts := httptest.NewServer(h)
			defer ts.Close()
			b.SetBytes(int64(len(f.body)))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				resp, err := http.Post(ts.URL+f.path, f.ctype, bytes.NewReader(f.body))
				if err != nil || resp.StatusCode != 200 {
					b.Fatalf("post: %v %v", err, resp)
				}
				resp.Body.Close()
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}

// BenchmarkLoad streams a 100k-line file per format from disk through the
// Loader into a real SQLite store and reports records/s and the peak heap
// in use (the input is not held in memory).
func BenchmarkLoad(b *testing.B) {
	const n = 100_000
	for _, f := range []struct {
		name string
		gen  func(int) []byte
	}{{"jsonl", benchJSONL}, {"text", benchText}} {
		path := filepath.Join(b.TempDir(), f.name)
		data := f.gen(n)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			b.Fatal(err)
		}
		size := len(data)
		data = nil
		b.Run(f.name, func(b *testing.B) {
			b.SetBytes(int64(size))
			var peak atomic.Uint64
			runtime.GC() // start from the live heap
			var base runtime.MemStats
			runtime.ReadMemStats(&base)
			stop := sampleHeap(&peak)
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				db, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), fmt.Sprintf("load%d.db", i)), sqlite.Options{})
				if err != nil {
					b.Fatal(err)
				}
				fh, err := os.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				st, _, err := NewLoader(NewDecoder(DecoderConfig{}), db, nil).Load(context.Background(), f.name, fh)
				fh.Close()
				if err != nil || st.Accepted != n {
					b.Fatalf("load: %v, %+v", err, st)
				}
				b.StopTimer()
				db.Close()
				b.StartTimer()
			}
			stop()
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "records/s")
			b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MB")
			b.ReportMetric(float64(peak.Load()-min(peak.Load(), base.HeapInuse))/(1<<20), "peak-over-base-MB")
		})
	}
}

// BenchmarkDecode measures decoding alone (no store) per format.
func BenchmarkDecode(b *testing.B) {
	const n = 5000
	dc := NewDecoder(DecoderConfig{})
	jsonl, text, lp, ol := benchJSONL(n), benchText(n), benchLokiProto(n), benchOTLPLogs(n)
	raw, _ := snappy.Decode(nil, lp)
	for _, c := range []struct {
		name string
		size int
		fn   func(*Batch)
	}{
		{"jsonl", len(jsonl), func(bt *Batch) { dc.JSONLines(jsonl, bt) }},
		{"text", len(text), func(bt *Batch) { dc.TextLines(text, bt) }},
		{"loki-protobuf", len(raw), func(bt *Batch) { dc.LokiProto(raw, bt) }},
		{"otlp-logs-protobuf", len(ol), func(bt *Batch) { dc.OTLPLogsProto(ol, bt) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(c.size))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				bt := NewBatch(dc.Limits())
				c.fn(bt)
				if bt.Len() != n {
					b.Fatalf("%d records", bt.Len())
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}

// sampleHeap records the largest HeapInuse seen every 20 ms until stopped.
func sampleHeap(peak *atomic.Uint64) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}
