package storetest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store"
)

// fullRecords are records that set every field, with awkward values:
// nanosecond times, unicode, empty and long strings, many attributes.
func fullRecords(t *testing.T, e *env) []schema.Record {
	trace := e.traceID(t)
	root, child := e.spanID(t), e.spanID(t)
	svc := e.service("checkout")
	return []schema.Record{
		{
			Type: schema.TypeSpan, Time: e.at(123456789 * time.Nanosecond), TraceID: trace,
			SpanID: root, Service: svc, Name: "POST /api/v1/orders", Duration: 3*time.Second + 7,
			Status: schema.StatusError, Body: "span: call exceeded 3000ms", Severity: schema.SeverityError,
			Attrs: map[string]string{schema.AttrHTTPStatus: "504", schema.AttrPeerService: "payments"},
		},
		{
			Type: schema.TypeLog, Time: e.at(123456790 * time.Nanosecond), TraceID: trace,
			SpanID: child, ParentSpanID: root, Service: svc,
			Severity: schema.SeverityError + 1, SeverityText: "Erreur",
			Body: "paiement refusé: délai dépassé ⏱ 支付超时 🚨 \"quoted\"\ttab\nnewline",
			Name: "com.example.Pay:42", Template: "paiement refusé: délai dépassé <*>",
			Signature: "0123456789abcdef",
			Attrs: map[string]string{
				"unicode.ключ": "значение ✓", "empty": "", "service.version": "1.2.3",
				"long": strings.Repeat("x", 5000), "k=v;": "a\x00b", "12:3": "4:5", "é:": "1:2:3",
			},
		},
		{
			Type: schema.TypeLog, Time: e.at(2 * time.Second), TraceID: trace, Service: svc,
			Severity: schema.SeverityInfo, SeverityText: "INFO", Body: "plain info, no span, nil attrs",
		},
		{
			Type: schema.TypeLog, Time: e.at(3 * time.Second), TraceID: trace, Service: svc,
			Body: "zero severity, empty attrs", Attrs: map[string]string{},
		},
		{
			Type: schema.TypeSpan, Time: e.at(4 * time.Second), TraceID: trace, SpanID: e.spanID(t),
			ParentSpanID: child, Service: svc, Name: "SELECT", Status: schema.StatusOK,
			Duration: time.Nanosecond, Body: "span ok with 1ns duration",
		},
		{
			Type: schema.TypeLog, Time: e.at(5 * time.Second), Service: svc,
			Severity: schema.SeverityFatal + 3, Body: "no trace id at all", Attrs: map[string]string{"a": "b"},
		},
		{
			Type: schema.TypeLog, Time: e.at(6 * time.Second), TraceID: trace, Service: svc, Severity: schema.SeverityError,
			Body:  "large: a stack trace\n" + strings.Repeat("\tat com.example.Service.method(Service.java:123)\n", 6000),
			Attrs: manyAttrs(300),
		},
	}
}

// manyAttrs is a map of n attributes.
func manyAttrs(n int) map[string]string {
	m := make(map[string]string, n)
	for i := range n {
		m[fmt.Sprintf("attr.%03d", i)] = strings.Repeat("v", i)
	}
	return m
}

func testRoundTrip(t *testing.T, s store.Store, e *env) {
	want := fullRecords(t, e)
	write(t, s, e, want)
	var withTrace []schema.Record
	for _, r := range want {
		if r.TraceID != "" {
			withTrace = append(withTrace, r)
		}
	}
	t.Run("ByTrace", func(t *testing.T) {
		sameRecords(t, withTrace, collect(t, s.TraceRecords(e.ctx, want[0].TraceID, 0)))
	})
	t.Run("ByWindow", func(t *testing.T) {
		q := schema.WindowQuery{From: e.at(0), To: e.at(time.Minute), Service: want[0].Service}
		sameRecords(t, want, collect(t, s.WindowRecords(e.ctx, q)))
	})
}

func testTraceLookup(t *testing.T, s store.Store, e *env) {
	svc := e.service("lookup")
	a, b := e.traceID(t), e.traceID(t)
	recs := []schema.Record{
		{Time: e.at(0), TraceID: a, Service: svc, Body: "a1"},
		{Time: e.at(time.Second), TraceID: b, Service: svc, Body: "b1"},
		{Time: e.at(2 * time.Second), TraceID: a, Service: svc, Body: "a2"},
	}
	write(t, s, e, recs[:2])
	write(t, s, e, recs[2:]) // one trace across two batches
	sameRecords(t, []schema.Record{recs[0], recs[2]}, collect(t, s.TraceRecords(e.ctx, a, 0)))
	sameRecords(t, recs[1:2], collect(t, s.TraceRecords(e.ctx, b, 0)))
	if got := collect(t, s.TraceRecords(e.ctx, e.traceID(t), 0)); len(got) != 0 {
		t.Errorf("an unknown trace id yielded %d records", len(got))
	}
	if got := collect(t, s.TraceRecords(e.ctx, "", 0)); len(got) != 0 {
		t.Errorf("the empty trace id yielded %d records", len(got))
	}
}

func testTraceLimit(t *testing.T, s store.Store, e *env) {
	id, svc := e.traceID(t), e.service("limit")
	var recs []schema.Record
	for i := range 10 {
		recs = append(recs, schema.Record{Time: e.at(time.Duration(i) * time.Millisecond), TraceID: id, Service: svc, Body: string(rune('a' + i))})
	}
	write(t, s, e, recs)
	if got := collect(t, s.TraceRecords(e.ctx, id, 3)); len(got) != 3 {
		t.Errorf("limit 3 yielded %d records", len(got))
	}
	if got := collect(t, s.TraceRecords(e.ctx, id, 0)); len(got) != 10 {
		t.Errorf("limit 0 (default cap) yielded %d records, want all 10", len(got))
	}
	if got := collect(t, s.TraceRecords(e.ctx, id, -1)); len(got) != 10 {
		t.Errorf("a negative limit yielded %d records, want all 10", len(got))
	}
}

func testEarlyBreak(t *testing.T, s store.Store, e *env) {
	id, svc := e.traceID(t), e.service("break")
	recs := []schema.Record{
		{Time: e.at(0), TraceID: id, Service: svc, Body: "one"},
		{Time: e.at(time.Second), TraceID: id, Service: svc, Body: "two"},
	}
	write(t, s, e, recs)
	for range 20 { // a leaked cursor or connection would show up here
		for _, err := range s.WindowRecords(e.ctx, schema.WindowQuery{From: e.at(0), To: e.at(time.Minute), Service: svc}) {
			if err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	write(t, s, e, []schema.Record{{Time: e.at(2 * time.Second), TraceID: id, Service: svc, Body: "three"}})
	if got := collect(t, s.TraceRecords(e.ctx, id, 0)); len(got) != 3 {
		t.Errorf("after breaking out of iterations, the trace has %d records, want 3", len(got))
	}
}
