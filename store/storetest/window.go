package storetest

import (
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store"
)

// windowRecords are written out of time order, across two services.
func windowRecords(t *testing.T, e *env) []schema.Record {
	a, b := e.service("api"), e.service("db")
	id := e.traceID(t)
	return []schema.Record{
		{Time: e.at(3 * time.Second), TraceID: id, Service: a, Severity: schema.SeverityInfo, Body: "t3-api-info"},
		{Time: e.at(1 * time.Second), TraceID: id, Service: b, Severity: schema.SeverityWarn, Body: "t1-db-warn"},
		{Time: e.at(0), TraceID: id, Service: a, Severity: schema.SeverityDebug, Body: "t0-api-debug"},
		{Time: e.at(2 * time.Second), TraceID: id, Service: a, Severity: schema.SeverityError, Body: "t2-api-error"},
		{Time: e.at(4 * time.Second), TraceID: id, Service: b, Type: schema.TypeSpan, Status: schema.StatusError, Body: "t4-db-span-error"},
		{Time: e.at(4*time.Second + 1), TraceID: id, Service: b, Type: schema.TypeSpan, Status: schema.StatusOK, Body: "t4n-db-span-ok"},
		{Time: e.at(5 * time.Second), TraceID: id, Service: a, Severity: schema.SeverityFatal, Body: "t5-api-fatal"},
		{Time: e.at(6*time.Second - 1), TraceID: id, Service: b, Body: "t6m-db-unset"},
	}
}

func window(e *env, from, to time.Duration) schema.WindowQuery {
	return schema.WindowQuery{From: e.at(from), To: e.at(to)}
}

func testWindowOrder(t *testing.T, s store.Store, e *env) {
	write(t, s, e, windowRecords(t, e))
	equalBodies(t, "whole range", collect(t, s.WindowRecords(e.ctx, window(e, 0, time.Minute))),
		"t0-api-debug", "t1-db-warn", "t2-api-error", "t3-api-info", "t4-db-span-error", "t4n-db-span-ok", "t5-api-fatal", "t6m-db-unset")
	// From is inclusive, To exclusive, to the nanosecond.
	equalBodies(t, "[1s, 4s)", collect(t, s.WindowRecords(e.ctx, window(e, time.Second, 4*time.Second))),
		"t1-db-warn", "t2-api-error", "t3-api-info")
	equalBodies(t, "[4s, 4s+1ns)", collect(t, s.WindowRecords(e.ctx, window(e, 4*time.Second, 4*time.Second+1))),
		"t4-db-span-error")
	equalBodies(t, "[4s+1ns, 6s-1ns)", collect(t, s.WindowRecords(e.ctx, window(e, 4*time.Second+1, 6*time.Second-1))),
		"t4n-db-span-ok", "t5-api-fatal")
}

func testWindowService(t *testing.T, s store.Store, e *env) {
	recs := windowRecords(t, e)
	write(t, s, e, recs)
	q := window(e, 0, time.Minute)
	q.Service = recs[1].Service
	equalBodies(t, "service db", collect(t, s.WindowRecords(e.ctx, q)),
		"t1-db-warn", "t4-db-span-error", "t4n-db-span-ok", "t6m-db-unset")
	q.Service = e.service("nobody")
	equalBodies(t, "unknown service", collect(t, s.WindowRecords(e.ctx, q)))
}

func testWindowErrorsOnly(t *testing.T, s store.Store, e *env) {
	recs := windowRecords(t, e)
	write(t, s, e, recs)
	q := window(e, 0, time.Minute)
	q.ErrorsOnly = true
	equalBodies(t, "errors only", collect(t, s.WindowRecords(e.ctx, q)),
		"t1-db-warn", "t2-api-error", "t4-db-span-error", "t5-api-fatal")
	q.Service = recs[0].Service
	equalBodies(t, "errors only of api", collect(t, s.WindowRecords(e.ctx, q)),
		"t2-api-error", "t5-api-fatal")
	q.Limit = 1
	equalBodies(t, "errors only of api, limit 1", collect(t, s.WindowRecords(e.ctx, q)), "t2-api-error")
}

func testWindowLimit(t *testing.T, s store.Store, e *env) {
	write(t, s, e, windowRecords(t, e))
	q := window(e, 0, time.Minute)
	q.Limit = 3
	equalBodies(t, "limit 3", collect(t, s.WindowRecords(e.ctx, q)), "t0-api-debug", "t1-db-warn", "t2-api-error")
	q.Limit = 100
	if got := collect(t, s.WindowRecords(e.ctx, q)); len(got) != 8 {
		t.Errorf("limit 100 yielded %d records, want 8", len(got))
	}
}

// testWindowNewest checks WindowQuery.Newest: a window over the limit
// yields its newest records, in time order (an incident is at the end of
// its window); under the limit, every record. The records come in several
// batches whose times interleave, so that a store merges them.
func testWindowNewest(t *testing.T, s store.Store, e *env) {
	write(t, s, e, windowRecords(t, e))
	q := window(e, 0, time.Minute)
	q.Newest, q.Limit = true, 3
	equalBodies(t, "newest 3", collect(t, s.WindowRecords(e.ctx, q)), "t4n-db-span-ok", "t5-api-fatal", "t6m-db-unset")
	q.Limit = 100
	if got := collect(t, s.WindowRecords(e.ctx, q)); len(got) != 8 {
		t.Errorf("newest 100 of 8 yielded %d records, want 8", len(got))
	}
	q = window(e, time.Second, 5*time.Second)
	q.Newest, q.Limit, q.Service = true, 2, e.service("db")
	equalBodies(t, "newest 2 of db in [1s, 5s)", collect(t, s.WindowRecords(e.ctx, q)), "t4-db-span-error", "t4n-db-span-ok")

	// Three batches of 100 records, one a millisecond in each batch in
	// turn: the newest 150 are the last 150 milliseconds.
	id := e.traceID(t)
	svc := e.service("many")
	base := 10 * time.Minute
	for b := range 3 {
		var recs []schema.Record
		for i := range 100 {
			ms := time.Duration(i*3+b) * time.Millisecond
			recs = append(recs, schema.Record{Time: e.at(base + ms), TraceID: id, Service: svc, Severity: schema.SeverityInfo,
				Body: "m" + time.Duration(ms).String()})
		}
		write(t, s, e, recs)
	}
	q = window(e, base, base+time.Minute)
	q.Newest, q.Limit = true, 150
	got := collect(t, s.WindowRecords(e.ctx, q))
	if len(got) != 150 {
		t.Fatalf("newest 150 of 300 yielded %d records", len(got))
	}
	for i, r := range got {
		if want := e.at(base + time.Duration(150+i)*time.Millisecond); !r.Time.Equal(want) {
			t.Fatalf("newest 150 of 300: record %d at %s, want %s (the newest, in time order)", i, r.Time.Sub(e.at(base)), want.Sub(e.at(base)))
		}
	}
}

func testWindowEmpty(t *testing.T, s store.Store, e *env) {
	write(t, s, e, windowRecords(t, e))
	for name, q := range map[string]schema.WindowQuery{
		"before":   window(e, -time.Hour, -time.Minute),
		"empty":    window(e, time.Second, time.Second),
		"inverted": window(e, 5*time.Second, time.Second),
		"zero":     {},
	} {
		if got := collect(t, s.WindowRecords(e.ctx, q)); len(got) != 0 {
			t.Errorf("%s window yielded %q", name, bodies(got))
		}
	}
}

// testWindowAttrs checks WindowQuery.Attrs: every requested attribute comes
// back with its value, the others are left out (both stores project), and
// records are otherwise whole.
func testWindowAttrs(t *testing.T, s store.Store, e *env) {
	id := e.traceID(t)
	svc := e.service("api")
	all := map[string]string{"peer.service": "db", "http.response.status_code": "503", "k8s.pod.name": "api-1", "noise": "x"}
	write(t, s, e, []schema.Record{
		{Time: e.at(0), TraceID: id, Service: svc, Severity: schema.SeverityError, Body: "with attrs", Attrs: all},
		{Time: e.at(time.Second), TraceID: id, Service: svc, Severity: schema.SeverityInfo, Body: "without attrs"},
	})
	q := window(e, 0, time.Minute)
	q.Attrs = []string{"peer.service", "http.response.status_code", "absent.key"}
	got := collect(t, s.WindowRecords(e.ctx, q))
	equalBodies(t, "projected", got, "with attrs", "without attrs")
	if len(got) != 2 {
		return
	}
	for _, k := range q.Attrs {
		if got[0].Attrs[k] != all[k] {
			t.Errorf("attribute %q = %q with Attrs %q, want %q", k, got[0].Attrs[k], q.Attrs, all[k])
		}
	}
	for _, k := range []string{"k8s.pod.name", "noise"} {
		if v, ok := got[0].Attrs[k]; ok {
			t.Errorf("attribute %q = %q came back with Attrs %q: a projection leaves it out", k, v, q.Attrs)
		}
	}
	if got[0].TraceID != id || got[0].Service != svc || got[0].Severity != schema.SeverityError {
		t.Errorf("projected record lost its fields: %+v", got[0])
	}
	if len(got[1].Attrs) != 0 {
		t.Errorf("a record without attributes came back with %v", got[1].Attrs)
	}
	q.Attrs = nil
	got = collect(t, s.WindowRecords(e.ctx, q))
	if len(got) == 2 && got[0].Attrs["noise"] != "x" {
		t.Errorf("Attrs nil must return every attribute, got %v", got[0].Attrs)
	}
}
