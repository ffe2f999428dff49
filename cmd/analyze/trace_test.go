package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/correlate"
	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store"
)

const traceCmdID = "5b8efff798038103d269b633813fc60c"

// traceStore writes a small failing trace (a checkout timing out on an
// inventory service that logs only GC pauses) into a fresh embedded store.
func traceStore(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "trace.db")
	st, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	id := schema.TraceID(traceCmdID)
	recs := []schema.Record{
		{Type: schema.TypeSpan, TraceID: id, SpanID: "00000000000000a1", Service: "checkout", Name: "POST /checkout",
			Time: ms(0), Duration: 3005 * time.Millisecond, Status: schema.StatusError},
		{Type: schema.TypeSpan, TraceID: id, SpanID: "00000000000000b1", ParentSpanID: "00000000000000a1",
			Service: "inventory", Name: "GET /reserve", Time: ms(4), Duration: 4200 * time.Millisecond},
		{Type: schema.TypeLog, TraceID: id, SpanID: "00000000000000b1", Service: "inventory", Time: ms(900),
			Severity: schema.SeverityWarn, Body: "GC pause (G1 Evacuation Pause) 1850ms"},
		{Type: schema.TypeLog, TraceID: id, SpanID: "00000000000000a1", Service: "checkout", Time: ms(3003),
			Severity: schema.SeverityError, Body: "java.net.SocketTimeoutException: Read timed out"},
	}
	if err := st.WriteBatch(ctx, recs); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestTraceJSON(t *testing.T) {
	path := traceStore(t)
	// Flags after the id, and an upper-case id.
	code, out, errs := runCmd(t, "trace", strings.ToUpper(traceCmdID), "--store", path, "--json")
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	var res correlate.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, out)
	}
	if !res.Failed || res.Origin == nil || res.Origin.Service != "checkout" || res.Events != 4 {
		t.Errorf("origin = %+v, events %d", res.Origin, res.Events)
	}
	if res.Suspect == nil || res.Suspect.Service != "inventory" || res.Suspect.Kind != schema.KindResourceGC {
		t.Errorf("suspect = %+v", res.Suspect)
	}
}

func TestTraceText(t *testing.T) {
	path := traceStore(t)
	code, out, errs := runCmd(t, "trace", "--store", path, traceCmdID)
	if code != exitOK || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	for _, want := range []string{">>> ORIGIN [dependency-timeout]", "Suspect   inventory  resource-gc",
		"(signal: resource-gc) GC pause", "+4.0ms    inventory",
		// No incident was analysed: the kind's generic runbook, which needs no store.
		"\nRunbook   resource-gc (P2, MTTR 1h; generic, of its kind): analyze runbook resource-gc\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
}

func TestTraceBadInput(t *testing.T) {
	path := traceStore(t)
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"trace", "--store", path, "not-a-trace"}, exitUsage, "is not a trace id"},
		{[]string{"trace", "--store", path}, exitUsage, "exactly one trace id"},
		{[]string{"trace", "--store", path, traceCmdID, traceCmdID}, exitUsage, "exactly one trace id"},
		{[]string{"trace", "--bogus", traceCmdID}, exitUsage, "bogus"},
		{[]string{"trace", "--store", path, "0af7651916cd43dd8448eb211c80319c"}, exitFail, "no records for trace 0af7651916cd43dd8448eb211c80319c"},
		{[]string{"trace", "--store", filepath.Join(t.TempDir(), "missing.db"), traceCmdID}, exitFail, "store"},
	}
	for _, c := range cases {
		code, out, errs := runCmd(t, c.args...)
		if code != c.code || out != "" || !strings.Contains(strings.ToLower(errs), strings.ToLower(c.msg)) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%q: exit %d (want %d), stdout %q, stderr %q (want %q)", c.args, code, c.code, out, errs, c.msg)
		}
	}
}
