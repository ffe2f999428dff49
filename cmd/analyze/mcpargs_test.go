package main

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPErrorsAreSentences: wrong arguments, as the SDK's client sends
// them, are tool errors of one sentence naming the argument and what to
// give — not "validating "arguments": validating root: …" or "json: cannot
// unmarshal number … into Go struct field …"; a window from year 1 to
// 9999 is told in days, not as 2562047h47m16.854775807s.
func TestMCPErrorsAreSentences(t *testing.T) {
	tools, _, _ := mcpTestTools(t)
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := newMCPServer(tools).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs := mcpConnect(t, ct)
	for _, c := range []struct {
		tool string
		args any
		want string
	}{
		{"incident", map[string]any{"top": "x"}, "top of incident must be an integer, not a string"},
		{"incident", map[string]any{"top": 1.5}, "top of incident must be an integer, not a number 1.5"},
		{"incident", map[string]any{"window": "1h"}, `incident takes no argument "window"; it takes since, from, to, service, top`},
		{"trace", map[string]any{"trace_id": 5}, "trace_id of trace must be a string, not a number"},
		{"trace", map[string]any{}, "trace needs trace_id"},
		{"runbook", map[string]any{"id": []string{"a"}}, "id of runbook must be a string, not an array"},
		{"patterns", map[string]any{"lines": "one line"}, "lines of patterns must be a list of strings, not a string"},
		{"incident", map[string]any{"from": "0001-01-01T00:00:00Z", "to": "9999-12-31T00:00:00Z"}, "the window is 3652058 days wide; the widest is 7d"},
	} {
		res := mcpCall(t, cs, c.tool, c.args)
		got := mcpText(res)
		if !res.IsError || !strings.Contains(got, c.want) || strings.Contains(got, "validating") || strings.Contains(got, "json:") || strings.Contains(got, "Go struct") || strings.Count(got, "\n") > 0 {
			t.Errorf("%s %v: %q, want one sentence with %q", c.tool, c.args, got, c.want)
		}
	}
	if res := mcpCall(t, cs, "runbook", map[string]any{"id": "timeout"}); res.IsError {
		t.Errorf("good arguments after the bad: %s", mcpText(res))
	}
}

// TestMCPOverServeRefusesBadIDs: /mcp answers a request whose id is 1.5
// (it was answered with id 1) or that lacks "jsonrpc" with a JSON-RPC
// -32600 and 400, and still serves a good one.
func TestMCPOverServeRefusesBadIDs(t *testing.T) {
	base, stop := startServe(t, "--store", filepath.Join(t.TempDir(), "s.db"))
	defer stop()
	for body, want := range map[string]string{
		`{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}`: "the id must be a string or an integer",
		`{"id":1,"method":"tools/list"}`:                   `needs \"jsonrpc\":\"2.0\"`,
		`not json`:                                         "not JSON",
	} {
		code, got := httpPost(t, base+"/mcp", body, "Content-Type", "application/json", "Accept", "application/json, text/event-stream")
		if code != http.StatusBadRequest || !strings.Contains(got, "-32") || !strings.Contains(got, want) {
			t.Errorf("%s: %d %s, want 400 with %q", body, code, got, want)
		}
	}
	code, got := httpPost(t, base+"/mcp", `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`, "Content-Type", "application/json", "Accept", "application/json, text/event-stream")
	if code != http.StatusOK || !strings.Contains(got, `"id":7`) {
		t.Errorf("a good request: %d %s", code, got)
	}
}
