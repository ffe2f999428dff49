package correlate

import (
	"fmt"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
)

// benchTraces makes n synthetic traces of 20 records each (6 spans over 4
// services, 14 logs); every fifth trace fails with a pool exhaustion deep
// down and timeouts above it, one host clock is 300ms off.
func benchTraces(n int) [][]schema.Record {
	out := make([][]schema.Record, n)
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	svcs := []string{"gateway", "orders", "payment", "ledger"}
	for i := range out {
		id := schema.TraceID(fmt.Sprintf("%032x", i+1))
		recs := make([]schema.Record, 0, 20)
		t0 := base.Add(time.Duration(i) * time.Millisecond)
		for s := 0; s < 6; s++ {
			svc := svcs[min(s, 3)]
			parent := schema.SpanID("")
			if s > 0 {
				parent = schema.SpanID(fmt.Sprintf("%016x", s))
			}
			skew := time.Duration(0)
			if svc == "payment" {
				skew = 300 * time.Millisecond
			}
			recs = append(recs, schema.Record{Type: schema.TypeSpan, TraceID: id,
				SpanID: schema.SpanID(fmt.Sprintf("%016x", s+1)), ParentSpanID: parent, Service: svc,
				Name: "op", Time: t0.Add(time.Duration(s)*time.Millisecond + skew),
				Duration: time.Duration(100-10*s) * time.Millisecond,
				Attrs:    map[string]string{schema.AttrHost: svc + "-1"}})
		}
		for l := 0; l < 14; l++ {
			s := l % 6
			r := schema.Record{Type: schema.TypeLog, TraceID: id, SpanID: schema.SpanID(fmt.Sprintf("%016x", s+1)),
				Service: svcs[min(s, 3)], Time: t0.Add(time.Duration(s*2+l) * time.Millisecond),
				Severity: schema.SeverityInfo, Body: "handled request for customer 1234 in 12ms"}
			if i%5 == 0 && l >= 11 {
				r.Severity = schema.SeverityError
				r.Body = [...]string{"HikariPool-1 - Connection is not available, request timed out after 30000ms.",
					"Read timed out calling http://ledger:8080/entries", "upstream request timeout"}[l-11]
			}
			recs = append(recs, r)
		}
		out[i] = recs
	}
	return out
}

// BenchmarkAnalyzeRecords is the incident-analysis path (no timeline);
// ns/op is per trace of 20 records.
func BenchmarkAnalyzeRecords(b *testing.B) {
	traces := benchTraces(1000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		AnalyzeRecords(traces[i%len(traces)], Options{SkipTimeline: true})
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/20, "ns/record")
}

// BenchmarkAnalyzeRecordsTimeline is the `analyze trace` path.
func BenchmarkAnalyzeRecordsTimeline(b *testing.B) {
	traces := benchTraces(1000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		AnalyzeRecords(traces[i%len(traces)], Options{})
	}
}

func BenchmarkClassifyError(b *testing.B) {
	r := errorLog("org.springframework.web.client.ResourceAccessException: I/O error on GET request for \"http://inventory:8080/stock/77\": Read timed out; nested exception is java.net.SocketTimeoutException: Read timed out")
	b.ReportAllocs()
	for b.Loop() {
		Classify(r)
	}
}

// BenchmarkIncidentScale analyses 50k traces of 20 records (1M records)
// per op, as incident analysis does, and reports the process CPU time per
// op (cpu-ms/1M-records; GC included) besides wall time.
func BenchmarkIncidentScale(b *testing.B) {
	traces := benchTraces(50_000)
	b.ReportAllocs()
	b.ResetTimer()
	start := cpuTime()
	for b.Loop() {
		for _, tr := range traces {
			AnalyzeRecords(tr, Options{SkipTimeline: true})
		}
	}
	b.ReportMetric(float64((cpuTime()-start).Milliseconds())/float64(b.N), "cpu-ms/1M-records")
}

// BenchmarkRetriesInOneSpan: one request that logged 20,000 errors naming
// no callee, with a retry naming one every hundredth line. Each error
// looks for the latest failure of its span that named a callee (see
// earlierInSpan); that must not cost a scan of the trace per error.
func BenchmarkRetriesInOneSpan(b *testing.B) {
	const id = schema.TraceID("4bf92f3577b34da6a3ce929d0e0e4736")
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	recs := []schema.Record{{TraceID: id, SpanID: "00000000000000a1", Type: schema.TypeSpan, Service: "svc",
		Name: "GET /x", Time: base, Duration: time.Minute, Status: schema.StatusError}}
	for i := range 20_000 {
		msg := fmt.Sprintf("Error handling request: giving up after %d attempts: Request failed with status code 503", i)
		if i%100 == 0 {
			msg = "retry 1/2 for GET http://ledger:8080/x: Request failed with status code 503"
		}
		recs = append(recs, schema.Record{TraceID: id, SpanID: "00000000000000a1", Type: schema.TypeLog, Service: "svc",
			Severity: schema.SeverityError, Time: base.Add(time.Duration(i) * time.Millisecond), Body: msg})
	}
	for b.Loop() {
		AnalyzeRecords(recs, Options{SkipTimeline: true})
	}
}

// BenchmarkRefusedAddress: 20,000 errors naming one address and no
// service. The service behind the address is looked up once per trace.
func BenchmarkRefusedAddress(b *testing.B) {
	const id = schema.TraceID("4bf92f3577b34da6a3ce929d0e0e4736")
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	var recs []schema.Record
	for i := range 20_000 {
		recs = append(recs, schema.Record{TraceID: id, Type: schema.TypeLog, Service: "svc", Severity: schema.SeverityError,
			Time: base.Add(time.Duration(i) * time.Millisecond), Body: "dial tcp 10.0.0.7:5432: connect: connection refused"})
	}
	for b.Loop() {
		AnalyzeRecords(recs, Options{SkipTimeline: true})
	}
}
