package patterns

import (
	"testing"
)

// benchLines are short, typical application log messages.
var benchLines = []string{
	"PacketResponder 1 for block blk_-6952295868487656571 terminating",
	"Received connection request /10.10.34.11:45307",
	"[instance: b9000564-fe1a-409b-b8cc-1e88b294cd1d] Claim successful",
	"call to payment-gateway exceeded 3000ms after 3 retries",
	"authentication failure; logname= uid=0 euid=0 tty=NODEVssh ruser= rhost=218.188.2.4",
	"circuit breaker is OPEN for inventory",
	`Post "http://payment:8080/charge": context deadline exceeded`,
	"user 'bob' not found",
	"HikariPool-1 - Connection is not available, request timed out after 30000ms.",
	"GC pause (G1 Evacuation Pause) 412M->380M(512M) 185.3ms",
}

func BenchmarkMask(b *testing.B) {
	bytes := 0
	for _, l := range benchLines {
		bytes += len(l)
	}
	b.SetBytes(int64(bytes / len(benchLines)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Mask(benchLines[i%len(benchLines)])
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}

// BenchmarkMaskLoghub masks the 20,000 messages of loghub-2k.
func BenchmarkMaskLoghub(b *testing.B) {
	dir := datasetDir(b, "loghub-2k")
	var lines []string
	for _, sys := range loghubSystems {
		ls, err := readLoghub(dir, sys)
		if err != nil {
			b.Fatal(err)
		}
		for _, l := range ls {
			lines = append(lines, l.content)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Mask(lines[i%len(lines)])
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}

// BenchmarkMinerLoghub mines each loghub-2k system from scratch: Add for
// every line, then Templates.
func BenchmarkMinerLoghub(b *testing.B) {
	dir := datasetDir(b, "loghub-2k")
	var systems [][]labelled
	total := 0
	for _, sys := range loghubSystems {
		ls, err := readLoghub(dir, sys)
		if err != nil {
			b.Fatal(err)
		}
		systems = append(systems, ls)
		total += len(ls)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, ls := range systems {
			m := NewMiner(Config{})
			for _, l := range ls {
				m.Add(l.content)
			}
			m.Templates()
		}
	}
	b.ReportMetric(float64(b.N*total)/b.Elapsed().Seconds(), "lines/s")
}
