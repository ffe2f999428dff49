package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpCall calls a tool and returns its result, failing on a protocol error.
func mcpCall(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", name, err)
	}
	return res
}

// mcpText joins a result's text contents.
func mcpText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// mcpStructured is a result's structured content as JSON.
func mcpStructured(t *testing.T, res *mcp.CallToolResult) []byte {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mcpConnect(t *testing.T, tr mcp.Transport) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "faultline-test", Version: "1"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// TestMCPInProcess: the SDK's client over in-memory transports lists the
// four tools with their descriptions and schemas, gets the CLI's
// documents as structured content (and as text, after a summary), and
// gets tool errors, not protocol errors or a crash, for bad input.
func TestMCPInProcess(t *testing.T) {
	tools, path, ids := mcpTestTools(t)
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := newMCPServer(tools).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs := mcpConnect(t, ct)

	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]*mcp.Tool{}
	for _, tl := range list.Tools {
		names[tl.Name] = tl
	}
	for _, n := range []string{"incident", "trace", "runbook", "patterns"} {
		tl := names[n]
		if tl == nil || len(tl.Description) < 100 || tl.InputSchema == nil || tl.Annotations == nil || !tl.Annotations.ReadOnlyHint {
			t.Errorf("tool %s: %+v", n, tl)
		}
	}
	if len(names) != 4 {
		t.Errorf("%d tools, want 4", len(names))
	}

	from, to := enrichT0.Add(-5*time.Minute).Format(time.RFC3339), enrichT0.Add(15*time.Minute).Format(time.RFC3339)
	res := mcpCall(t, cs, "incident", map[string]any{"from": from, "to": to, "top": 3})
	if res.IsError {
		t.Fatalf("incident: %s", mcpText(res))
	}
	_, cli, _ := runCmd(t, "incident", "--store", path, "--json", "--from", from, "--to", to, "--top", "3")
	if !sameJSON(t, mcpStructured(t, res), []byte(cli)) {
		t.Errorf("structured content differs from analyze incident --json:\n%s\n%s", mcpStructured(t, res), cli)
	}
	if len(res.Content) != 2 || !strings.HasPrefix(mcpText(res), "Incident window") {
		t.Errorf("content: %s", mcpText(res))
	}
	if tc, ok := res.Content[1].(*mcp.TextContent); !ok || !sameJSON(t, []byte(tc.Text), []byte(cli)) {
		t.Errorf("the second text is not the JSON document")
	}

	res = mcpCall(t, cs, "trace", map[string]any{"trace_id": ids[0]})
	if res.IsError || !strings.Contains(mcpText(res), "Origin: inventory") {
		t.Errorf("trace: %s", mcpText(res))
	}
	res = mcpCall(t, cs, "patterns", map[string]any{"lines": []string{"ERROR x 1 failed", "ERROR x 2 failed"}})
	if res.IsError || !strings.Contains(mcpText(res), "2 lines, 1 templates") {
		t.Errorf("patterns: %s", mcpText(res))
	}
	res = mcpCall(t, cs, "runbook", map[string]any{"id": "timeout"})
	if res.IsError || !strings.Contains(string(mcpStructured(t, res)), `"markdown"`) {
		t.Errorf("runbook: %s", mcpText(res))
	}

	for _, c := range []struct {
		tool string
		args any
		want string
	}{
		{"trace", map[string]any{"trace_id": "nope"}, "is not a trace id"},
		{"trace", map[string]any{}, "trace_id"},
		{"trace", map[string]any{"trace_id": 42}, "trace_id"},
		{"incident", map[string]any{"since": "forever"}, "not a positive duration"},
		{"incident", map[string]any{"window": "1h"}, "window"},
		{"runbook", map[string]any{"id": "no such thing!"}, "neither a failure kind"},
		{"patterns", map[string]any{"lines": []string{}}, "give the log lines"},
	} {
		res := mcpCall(t, cs, c.tool, c.args)
		if !res.IsError || !strings.Contains(mcpText(res), c.want) {
			t.Errorf("%s %v: error %v %q, want a tool error saying %q", c.tool, c.args, res.IsError, mcpText(res), c.want)
		}
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "rm -rf"}); err == nil {
		t.Error("an unknown tool is not a protocol error")
	}
}

// TestMCPStdio runs `analyze mcp` as a real process (the test binary
// re-executed as the command) and talks to it over its stdin and stdout.
func TestMCPStdio(t *testing.T) {
	path, ids := enrichStore(t)
	cmd := exec.Command(os.Args[0], "mcp", "--store", path, "--timeout", "20s")
	cmd.Env = append(os.Environ(), "FAULTLINE_ANALYZE_AS_MAIN=1", "FAULTLINE_STORE=")
	var stderr syncBuffer
	cmd.Stderr = &stderr
	cs := mcpConnect(t, &mcp.CommandTransport{Command: cmd})
	res := mcpCall(t, cs, "trace", map[string]any{"trace_id": ids[0]})
	if res.IsError || !strings.Contains(mcpText(res), "Origin: inventory") {
		t.Errorf("trace over stdio: %s", mcpText(res))
	}
	res = mcpCall(t, cs, "incident", map[string]any{"from": "2020-01-01T00:00:00Z", "to": "2020-01-01T01:00:00Z"})
	if !res.IsError || !strings.Contains(mcpText(res), "the store holds records from") {
		t.Errorf("empty window over stdio: %s", mcpText(res))
	}
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != exitOK {
		t.Errorf("analyze mcp ended %v after its stdin closed; stderr %q", cmd.ProcessState, stderr.String())
	}

	// No store: exit 1 with one sentence, before any protocol.
	none := exec.Command(os.Args[0], "mcp", "--store", t.TempDir()+"/none.db")
	none.Env = cmd.Env
	out, err := none.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitFail || strings.Count(string(out), "\n") != 1 {
		t.Errorf("no store: %v %q", err, out)
	}
}

// bearer adds an Authorization header to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// TestMCPOverServe: `analyze serve` with --auth-token serves the same
// tools at /mcp over streamable HTTP: 401 without the token, the tools
// with it.
func TestMCPOverServe(t *testing.T) {
	path, ids := enrichStore(t)
	base, stop := startServe(t, "--store", path, "--auth-token", "web-SECRET")
	defer stop()
	code, body := httpPost(t, base+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, "Content-Type", "application/json")
	if code != http.StatusUnauthorized || strings.Contains(body, "SECRET") {
		t.Errorf("without the token: %d %s", code, body)
	}
	hc := &http.Client{Transport: bearer{"web-SECRET", http.DefaultTransport}, Timeout: 30 * time.Second}
	// Behind a reverse proxy that passes its own Host on to 127.0.0.1.
	req, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Host = "faultline.example"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(raw), `"incident"`) {
		t.Errorf("tools/list through a proxy's Host: %d %s", resp.StatusCode, raw)
	}
	cs := mcpConnect(t, &mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: hc})
	from, to := enrichT0.Add(-5*time.Minute).Format(time.RFC3339), enrichT0.Add(15*time.Minute).Format(time.RFC3339)
	res := mcpCall(t, cs, "incident", map[string]any{"from": from, "to": to})
	if res.IsError || !strings.Contains(mcpText(res), "#1 inventory") {
		t.Errorf("incident over HTTP: %s", mcpText(res))
	}
	res = mcpCall(t, cs, "trace", map[string]any{"trace_id": ids[1]})
	if res.IsError || !strings.Contains(mcpText(res), "Origin: inventory") {
		t.Errorf("trace over HTTP: %s", mcpText(res))
	}
	res = mcpCall(t, cs, "trace", map[string]any{"trace_id": "xyz"})
	if !res.IsError || !strings.Contains(mcpText(res), "is not a trace id") {
		t.Errorf("bad trace id over HTTP: %s", mcpText(res))
	}
}
