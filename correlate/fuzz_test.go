package correlate

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
)

// fuzzMessages are the texts fuzzed records pick from.
var fuzzMessages = []string{
	"", "ok", "context deadline exceeded calling svc2", "GC pause 1200ms",
	"HikariPool-1 - Connection is not available, request timed out after 30000ms.",
	"CircuitBreaker 'svc3' is OPEN", "connection refused", "NullPointerException",
	"calling http://svc1:8080/x", "retrying (attempt 2/3)", "429 Too Many Requests",
}

// recordsFromBytes turns fuzz input into records: 7 bytes per record
// choosing type, span, parent, service, severity, time and message among
// small sets, so that trees, cycles, duplicates and skew all occur.
func recordsFromBytes(data []byte) []schema.Record {
	var recs []schema.Record
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	id := func(b byte) schema.SpanID {
		if b%9 == 0 {
			return ""
		}
		return schema.SpanID(fmt.Sprintf("%016x", b%9))
	}
	for len(data) >= 7 {
		b := data[:7]
		data = data[7:]
		r := schema.Record{
			TraceID:      "0af7651916cd43dd8448eb211c80319c",
			SpanID:       id(b[1]),
			ParentSpanID: id(b[2]),
			Service:      fmt.Sprintf("svc%d", b[3]%4),
			Severity:     schema.Severity(b[4] % 25),
			Time:         base.Add(time.Duration(int8(b[5])) * 7 * time.Millisecond),
			Body:         fuzzMessages[int(b[6])%len(fuzzMessages)],
			Attrs:        map[string]string{schema.AttrHost: fmt.Sprintf("h%d", b[3]%4)},
		}
		if b[0]%2 == 1 {
			r.Type = schema.TypeSpan
			r.Name = "op"
			r.Duration = time.Duration(b[0]) * time.Millisecond
			r.Status = schema.SpanStatus(b[4] % 3)
		}
		recs = append(recs, r)
	}
	return recs
}

// FuzzAnalyzeRecords checks that any set of records gives a consistent
// Result: no panic, one timeline entry per kept record, an origin and a
// suspect exactly when the trace failed, and causes that are services of
// the trace.
func FuzzAnalyzeRecords(f *testing.F) {
	f.Add([]byte("\x01\x01\x00\x00\x11\x00\x02\x01\x02\x01\x01\x11\x20\x04\x00\x02\x02\x02\x0d\x10\x03"))
	f.Add([]byte("\x01\x01\x02\x00\x00\x00\x00\x01\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x11\x00\x05"))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs := recordsFromBytes(data)
		res := AnalyzeRecords(recs, Options{})
		if len(res.Timeline) != res.Events || res.Events > len(recs) {
			t.Fatalf("timeline %d, events %d, records %d", len(res.Timeline), res.Events, len(recs))
		}
		origins := 0
		for _, e := range res.Timeline {
			if e.Role == "origin" {
				origins++
			}
		}
		if res.Failed != (res.Origin != nil) || res.Failed != (res.Suspect != nil) || origins != boolInt(res.Failed) {
			t.Fatalf("failed %v, origin %v, suspect %v, origin entries %d", res.Failed, res.Origin, res.Suspect, origins)
		}
		if res.Suspect != nil && !res.Suspect.Kind.Valid() {
			t.Fatalf("suspect kind %q", res.Suspect.Kind)
		}
		for _, c := range res.Cascade {
			if !slices.Contains(res.Services, c.CausedBy) || !c.Class.Valid() {
				t.Fatalf("cascade %+v: cause not a service of %v", c, res.Services)
			}
		}
	})
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
