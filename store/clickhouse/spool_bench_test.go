package clickhouse

import (
	"fmt"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
)

// BenchmarkSpoolAdd is the spool's cost while ClickHouse is down: one
// batch of 1,000 records encoded and fsynced to disk per operation.
func BenchmarkSpoolAdd(b *testing.B) {
	sp, err := openSpool(b.TempDir(), 1<<40)
	if err != nil {
		b.Fatal(err)
	}
	recs := make([]schema.Record, 1000)
	for i := range recs {
		recs[i] = schema.Record{Time: time.Unix(int64(i), 0), TraceID: "0af7651916cd43dd8448eb211c80319c", Service: "checkout",
			Severity: schema.SeverityError, Body: fmt.Sprintf("call to payments exceeded 3000ms (attempt %d)", i),
			Attrs: map[string]string{"http.route": "/api/v1/pay", "host.name": "checkout-3"}}
	}
	i := 0
	for b.Loop() {
		if err := sp.add(&entry{ID: fmt.Sprintf("%032x", i), Records: recs}); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64(b.N*len(recs))/b.Elapsed().Seconds(), "records/s")
}
