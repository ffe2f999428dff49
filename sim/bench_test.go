package sim

import (
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
)

// million is a configuration that yields about a million records.
func million() Config {
	return Config{Seed: 1, Fault: schema.KindDependencyTimeout, Baseline: 15 * time.Minute, Window: 10 * time.Minute, TracesPerSecond: 44}
}

func BenchmarkGenerate1M(b *testing.B) {
	var n int
	for i := 0; i < b.N; i++ {
		inc, err := Generate(million())
		if err != nil {
			b.Fatal(err)
		}
		n = len(inc.Records)
	}
	b.ReportMetric(float64(n), "records/op")
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

func BenchmarkWriteCaseSmall(b *testing.B) {
	inc, err := Generate(small(1, schema.KindDBPoolExhaustion))
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		if err := inc.WriteCase(b.TempDir()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(inc.Records)), "records/op")
}

func BenchmarkWriteCase1M(b *testing.B) {
	inc, err := Generate(million())
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := inc.WriteCase(b.TempDir()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(inc.Records))*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}
