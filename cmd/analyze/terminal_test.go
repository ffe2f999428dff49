package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store"
)

// Escape sequences an attacker can put in a service name or a message:
// clear screen, retitle the terminal (OSC 0), a hidden link (OSC 8).
const (
	evilService = "inv\x1b[2Jentory"
	evilBody    = "pool exhausted \x1b]0;pwned\x07 \x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\"
)

// hostileStore is enrichStore's incident with escape sequences in the
// callee's service name and in its error message.
func hostileStore(t *testing.T) (string, string) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hostile.db")
	st, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var recs []schema.Record
	var first string
	for i := range 8 {
		id := schema.TraceID(fmt.Sprintf("%032x", 0xf0000+i))
		if i == 0 {
			first = string(id)
		}
		t0 := enrichT0.Add(time.Duration(i) * 20 * time.Second)
		ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
		recs = append(recs,
			schema.Record{Type: schema.TypeSpan, TraceID: id, SpanID: "00000000000000a1", Service: "checkout", Name: "POST /checkout",
				Time: ms(0), Duration: 3005 * time.Millisecond, Status: schema.StatusError},
			schema.Record{Type: schema.TypeSpan, TraceID: id, SpanID: "00000000000000b1", ParentSpanID: "00000000000000a1",
				Service: evilService, Name: "GET /reserve", Time: ms(4), Duration: 2100 * time.Millisecond, Status: schema.StatusError},
			schema.Record{Type: schema.TypeLog, TraceID: id, SpanID: "00000000000000b1", Service: evilService, Time: ms(2100),
				Severity: schema.SeverityError, Body: evilBody},
			schema.Record{Type: schema.TypeLog, TraceID: id, SpanID: "00000000000000a1", Service: "checkout", Time: ms(3003),
				Severity: schema.SeverityError, Body: "call to inventory exceeded 3000ms"},
		)
	}
	if err := st.WriteBatch(ctx, recs); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return path, first
}

// TestTextOutputNeutralisesEscapes: analyze trace and analyze incident
// print escape sequences from logs as visible text; --json stays exact.
func TestTextOutputNeutralisesEscapes(t *testing.T) {
	path, id := hostileStore(t)
	window := []string{"--store", path, "--from", "2026-03-01T11:55:00Z", "--to", "2026-03-01T12:05:00Z"}
	for _, args := range [][]string{{"trace", "--store", path, id}, append([]string{"incident"}, window...)} {
		code, out, errs := runCmd(t, args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		if strings.ContainsAny(out, "\x1b\x07") {
			t.Errorf("%s printed raw control characters:\n%q", args[0], out)
		}
		if !strings.Contains(out, `inv\x1b[2Jentory`) {
			t.Errorf("%s: the service name is not shown with a visible escape:\n%s", args[0], out)
		}
	}
	code, out, _ := runCmd(t, "trace", "--json", "--store", path, id)
	var res struct {
		Cascade []struct{ Service string } `json:"cascade"`
		Suspect struct{ Service string }   `json:"suspect"`
	}
	if err := json.Unmarshal([]byte(out), &res); code != exitOK || err != nil {
		t.Fatalf("trace --json: exit %d, %v", code, err)
	}
	if !strings.Contains(out, `inv\u001b[2Jentory`) {
		t.Errorf("--json no longer carries the exact service name: %.400s", out)
	}
}
