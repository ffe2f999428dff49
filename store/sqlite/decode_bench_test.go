package sqlite

import (
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
)

// BenchmarkDecodeRecord is the per-record decoding cost of a scan, for a
// log record of a 200-byte body and four attributes.
func BenchmarkDecodeRecord(b *testing.B) {
	r := schema.Record{Time: time.Now(), TraceID: "4bf92f3577b34da6a3ce929d0e0e4736", SpanID: "00f067aa0ba902b7",
		ParentSpanID: "00f067aa0ba902b8", Service: "checkout", Severity: schema.SeverityInfo, SeverityText: "INFO",
		Body: strings.Repeat("handled POST /api/v1/orders ", 7), Template: "handled <*>", Signature: "0123456789abcdef",
		Attrs: map[string]string{"service.version": "1.4.2", "host.name": "node-17", "k8s.pod.name": "checkout-7d9f8b6c5-311",
			"http.response.status_code": "200"}}
	blob := string(encodeRecord(nil, &r, r.Time.UnixNano()))
	b.ReportAllocs()
	for b.Loop() {
		var got schema.Record
		if err := decodeRecord(blob, &got, nil); err != nil {
			b.Fatal(err)
		}
	}
}
