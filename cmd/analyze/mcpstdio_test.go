package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// mcpInit is an MCP client's opening: initialize and initialized.
const mcpInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
`

// rawMCP runs `analyze mcp` as a process with stdin written whole and
// closed, and returns the JSON-RPC messages it wrote, its exit code and
// its stderr.
func rawMCP(t *testing.T, store, stdin string) ([]map[string]any, int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "mcp", "--store", store, "--timeout", "20s")
	cmd.Env = append(os.Environ(), "FAULTLINE_ANALYZE_AS_MAIN=1", "FAULTLINE_STORE=")
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("analyze mcp did not end after its stdin closed; stdout %s", stdout.String())
	}
	var msgs []map[string]any
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Errorf("stdout line is not one JSON message: %q", sc.Text())
			continue
		}
		msgs = append(msgs, m)
	}
	return msgs, cmd.ProcessState.ExitCode(), stderr.String()
}

// answerTo finds the answer with id (as JSON encodes it: float64 or string).
func answerTo(msgs []map[string]any, id any) map[string]any {
	for _, m := range msgs {
		if _, isReq := m["method"]; !isReq && m["id"] == id {
			return m
		}
	}
	return nil
}

// TestMCPStdioMalformedLines: each line the issue found to end the
// session — not JSON, {"hello":1}, no "jsonrpc", an object id, a batch, a
// frame over 16 MiB, a fractional id — is answered -32700 or -32600 with
// a sentence (not a parser's text), and the requests around them are
// still answered; exit 0.
func TestMCPStdioMalformedLines(t *testing.T) {
	path, ids := enrichStore(t)
	huge := `{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"patterns","arguments":{"lines":["` + strings.Repeat("x", mcpMaxFrame) + `"]}}}`
	in := mcpInit +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"trace","arguments":{"trace_id":"` + ids[0] + `"}}}` + "\n" +
		"hello there\n" +
		`{"hello":1}` + "\n" +
		`{"id":3,"method":"tools/list"}` + "\n" +
		`{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}` + "\n" +
		`[{"jsonrpc":"2.0","id":4,"method":"tools/list"}]` + "\n" +
		huge + "\n" +
		`{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}` + "\n" +
		`{"jsonrpc":"2.0","id":5,"method":"tools/list"}` + "\n"
	msgs, code, stderr := rawMCP(t, path, in)
	if code != exitOK {
		t.Errorf("exit %d, want 0; stderr %s", code, stderr)
	}
	var codes []float64
	for _, m := range msgs {
		e, ok := m["error"].(map[string]any)
		if !ok || e["code"] != float64(rpcParseError) && e["code"] != float64(rpcInvalidRequest) {
			continue
		}
		codes = append(codes, e["code"].(float64))
		if msg, _ := e["message"].(string); strings.Contains(msg, "invalid character") || !strings.Contains(msg, "send") && !strings.Contains(msg, "must") && !strings.Contains(msg, "needs") {
			t.Errorf("error message %q is not a sentence saying what to send", msg)
		}
	}
	want := []float64{rpcParseError, rpcInvalidRequest, rpcInvalidRequest, rpcInvalidRequest, rpcInvalidRequest, rpcInvalidRequest, rpcInvalidRequest}
	if len(codes) != len(want) {
		t.Errorf("answered %d malformed lines with codes %v, want %v", len(codes), codes, want)
	}
	if a := answerTo(msgs, float64(2)); a == nil || !strings.Contains(toJSON(a), "Origin: inventory") {
		t.Errorf("the trace call sent before the malformed lines: %v", a)
	}
	if a := answerTo(msgs, float64(5)); a == nil || !strings.Contains(toJSON(a), `"incident"`) {
		t.Errorf("tools/list after the malformed lines: %v", a)
	}
	if answerTo(msgs, float64(99)) != nil {
		t.Error("the frame over 16 MiB was answered as a call")
	}
}

// TestMCPStdioAnswersAtEOF: initialize, initialized and tools/list piped
// and closed are all answered, every time (five runs answered [] [] [1] []
// []); so is an incident analysis still running when stdin ends.
func TestMCPStdioAnswersAtEOF(t *testing.T) {
	path, _ := enrichStore(t)
	for i := range 5 {
		msgs, code, stderr := rawMCP(t, path, mcpInit+`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`+"\n")
		if code != exitOK || answerTo(msgs, float64(1)) == nil || answerTo(msgs, float64(2)) == nil {
			t.Errorf("run %d: exit %d, answers %v; stderr %s", i, code, msgs, stderr)
		}
	}
	from, to := enrichT0.Add(-5*time.Minute).Format(time.RFC3339), enrichT0.Add(15*time.Minute).Format(time.RFC3339)
	msgs, code, _ := rawMCP(t, path, mcpInit+
		`{"jsonrpc":"2.0","id":"inc","method":"tools/call","params":{"name":"incident","arguments":{"from":"`+from+`","to":"`+to+`"}}}`+"\n")
	if a := answerTo(msgs, "inc"); code != exitOK || a == nil || !strings.Contains(toJSON(a), "#1 inventory") {
		t.Errorf("incident in flight at EOF: exit %d, answer %v", code, a)
	}
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// FuzzStdioGuard: every line is either passed on to the SDK as one
// JSON-RPC 2.0 object with a method or a result, or answered with exactly
// one JSON-RPC error line; nothing else reaches stdout. Seeded with the
// lines that used to end the session.
func FuzzStdioGuard(f *testing.F) {
	for _, s := range []string{"hello there", `{"hello":1}`, `{"id":3,"method":"tools/list"}`, `{"jsonrpc":"2.0","id":{"a":1},"method":"x"}`,
		`[{"jsonrpc":"2.0","id":4,"method":"tools/list"}]`, `{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}`, `{"jsonrpc":"2.0","id":5,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":"a","result":{}}`, `{"jsonrpc":"2.0","method":""}`, `"str"`, `1e3`, `{"jsonrpc":"2.0","id":99999999999999999999,"method":"x"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsAny(line, "\n\r") || len(bytes.TrimSpace([]byte(line))) == 0 {
			return
		}
		var out bytes.Buffer
		g := newStdioGuard(nil, &out, time.Second)
		fwd, _ := g.check([]byte(line))
		if fwd {
			var env rpcEnvelope
			if out.Len() != 0 || json.Unmarshal([]byte(line), &env) != nil || env.JSONRPC == nil || *env.JSONRPC != "2.0" ||
				env.Method == nil && env.Result == nil && env.Error == nil {
				t.Errorf("passed on %q (wrote %q)", line, out.String())
			}
			return
		}
		var m map[string]any
		if strings.Count(out.String(), "\n") != 1 || json.Unmarshal(out.Bytes(), &m) != nil || m["error"] == nil {
			t.Errorf("refused %q with %q, want one JSON-RPC error line", line, out.String())
		}
	})
}
