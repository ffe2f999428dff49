package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// mcpMaxFrame is the longest line (one JSON-RPC message) `analyze mcp`
// reads; a longer one is answered -32600 and skipped, and the session goes
// on. It is also the SDK's own limit (mcp.DefaultMaxLineLength).
const mcpMaxFrame = 16 << 20

// JSON-RPC error codes of messages refused before the SDK sees them.
const (
	rpcParseError     = -32700
	rpcInvalidRequest = -32600
)

// stdioGuard stands between stdin/stdout and the SDK's stdio transport,
// which ends the whole session (and the answers still pending) on one
// line it cannot read. The guard reads stdin a line at a time and passes
// on only well-formed JSON-RPC messages (one object, "jsonrpc":"2.0", an
// id that is a string or an integer, a method or a result); any other line
// it answers itself, -32700 (not JSON) or -32600 (not a valid request),
// with one sentence saying what to send, and reads on. When stdin ends it
// waits until every request passed on has been answered (bounded by
// drain), then ends the SDK's input, so that nothing read is left
// unanswered.
type stdioGuard struct {
	in    io.Reader
	out   io.Writer
	drain time.Duration

	wmu sync.Mutex // one line at a time on out

	mu      sync.Mutex
	cond    *sync.Cond
	pending map[string]bool // ids of requests passed on and not yet answered

	pr *io.PipeReader // what the SDK reads
	pw *io.PipeWriter
}

func newStdioGuard(in io.Reader, out io.Writer, drain time.Duration) *stdioGuard {
	g := &stdioGuard{in: in, out: out, drain: drain, pending: map[string]bool{}}
	g.cond = sync.NewCond(&g.mu)
	g.pr, g.pw = io.Pipe()
	return g
}

// Reader is the SDK's stdin; Writer its stdout.
func (g *stdioGuard) Reader() io.ReadCloser  { return g.pr }
func (g *stdioGuard) Writer() io.WriteCloser { return guardWriter{g} }

// run reads stdin until it ends or ctx is done, then ends the SDK's input
// once what was read is answered.
func (g *stdioGuard) run(ctx context.Context) {
	defer g.pw.Close()
	br := bufio.NewReaderSize(g.in, 64<<10)
	for ctx.Err() == nil {
		line, tooLong, err := readFrame(br, mcpMaxFrame)
		switch {
		case tooLong:
			g.refuse(nil, rpcInvalidRequest, fmt.Sprintf("the message is over %d MiB; send smaller requests (one JSON-RPC message per line)", mcpMaxFrame>>20))
		case len(bytes.TrimSpace(line)) > 0:
			if fwd, id := g.check(line); fwd {
				if id != "" {
					g.mu.Lock()
					g.pending[id] = true
					g.mu.Unlock()
				}
				if _, werr := g.pw.Write(append(bytes.TrimRight(line, "\r\n"), '\n')); werr != nil {
					return // the session ended
				}
			}
		}
		if err != nil {
			break
		}
	}
	g.awaitAnswers(ctx)
}

// awaitAnswers waits until no request passed on is unanswered, ctx is
// done or drain has passed.
func (g *stdioGuard) awaitAnswers(ctx context.Context) {
	stop := context.AfterFunc(ctx, func() { g.mu.Lock(); g.cond.Broadcast(); g.mu.Unlock() })
	defer stop()
	timer := time.AfterFunc(g.drain, func() { g.mu.Lock(); g.drain = 0; g.cond.Broadcast(); g.mu.Unlock() })
	defer timer.Stop()
	g.mu.Lock()
	defer g.mu.Unlock()
	for len(g.pending) > 0 && ctx.Err() == nil && g.drain > 0 {
		g.cond.Wait()
	}
}

// readFrame reads one line of at most max bytes (without its newline); a
// longer line is read to its end and dropped (tooLong). err is the read's
// error (io.EOF at the end), with the last line in line.
func readFrame(br *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max+2 { // room for \r\n
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, tooLong, err
		}
	}
}

// rpcEnvelope is what the guard reads of a message.
type rpcEnvelope struct {
	JSONRPC *string         `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  *string         `json:"method"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// check tells whether line is a message to pass on, and the key of its
// id when it is a request; any other line it answers itself.
func (g *stdioGuard) check(line []byte) (forward bool, id string) {
	v := vetMessage(line)
	if v.code != 0 {
		g.refuse(v.replyID, v.code, v.msg)
		return false, ""
	}
	return true, v.key
}

// vetted is vetMessage's verdict: code 0 passes the message on (key is
// its request id's, "" for a notification or an answer); else the error
// to answer with, replyID its id when it could be read.
type vetted struct {
	key     string
	code    int
	msg     string
	replyID json.RawMessage
}

// vetMessage checks one JSON-RPC message as the SDK would need it: one
// object, "jsonrpc":"2.0", an id that is a string or an integer (1.5 was
// answered as 1), a method, or a result or error (an answer).
func vetMessage(line []byte) vetted {
	line = bytes.TrimSpace(line)
	if !json.Valid(line) {
		return vetted{code: rpcParseError, msg: "the line is not JSON; send one JSON-RPC 2.0 message per line"}
	}
	if line[0] == '[' {
		return vetted{code: rpcInvalidRequest, msg: "batches are not supported; send one JSON-RPC message per line"}
	}
	var env rpcEnvelope
	if line[0] != '{' || json.Unmarshal(line, &env) != nil {
		return vetted{code: rpcInvalidRequest, msg: `the message is not a JSON-RPC object; send {"jsonrpc":"2.0","id":1,"method":"…"}`}
	}
	key, idOK := idKey(env.ID)
	var replyID json.RawMessage
	if idOK && key != "" {
		replyID = env.ID
	}
	switch {
	case env.JSONRPC == nil || *env.JSONRPC != "2.0":
		return vetted{code: rpcInvalidRequest, replyID: replyID, msg: `the message needs "jsonrpc":"2.0"`}
	case !idOK:
		return vetted{code: rpcInvalidRequest, msg: "the id must be a string or an integer"}
	case env.Method == nil && env.Result == nil && env.Error == nil:
		return vetted{code: rpcInvalidRequest, replyID: replyID, msg: `the message has no "method": send a request or notification such as {"jsonrpc":"2.0","id":1,"method":"tools/list"}`}
	case env.Method != nil && *env.Method == "":
		return vetted{code: rpcInvalidRequest, replyID: replyID, msg: `the "method" is empty; name one such as tools/list or tools/call`}
	case env.Method != nil:
		return vetted{key: key}
	}
	return vetted{} // an answer to a request of the server
}

// idKey is a request id as a comparable key ("" for none or null), and
// whether it is one JSON-RPC allows here: a string or an integer.
func idKey(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", true
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return "s" + s, true
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil {
			return "", false
		}
		return "n" + strconv.FormatInt(n, 10), true
	}
	return "", false
}

// refuse writes a JSON-RPC error answer of its own.
func (g *stdioGuard) refuse(id json.RawMessage, code int, msg string) {
	b := rpcErrorJSON(id, code, msg)
	g.wmu.Lock()
	defer g.wmu.Unlock()
	g.out.Write(append(b, '\n'))
}

// rpcErrorJSON is a JSON-RPC error answer (id null when nil).
func rpcErrorJSON(id json.RawMessage, code int, msg string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	type rpcError struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   rpcError        `json:"error"`
	}{"2.0", id, rpcError{code, msg}})
	return b
}

// vetHTTP refuses, on /mcp, a posted message that vetMessage refuses,
// with its JSON-RPC error and 400, before the SDK reads it.
func vetHTTP(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			h.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, mcpMaxFrame))
		if err != nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			w.Write(rpcErrorJSON(nil, rpcInvalidRequest, fmt.Sprintf("the message is over %d MiB or was not received whole; send smaller requests", mcpMaxFrame>>20)))
			return
		}
		if v := vetMessage(body); v.code != 0 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			w.Write(rpcErrorJSON(v.replyID, v.code, v.msg))
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, r)
	})
}

// guardWriter is the SDK's stdout: it writes each message whole and marks
// the requests it answers.
type guardWriter struct{ g *stdioGuard }

func (w guardWriter) Write(p []byte) (int, error) {
	w.g.wmu.Lock()
	n, err := w.g.out.Write(p)
	w.g.wmu.Unlock()
	w.g.answered(p)
	return n, err
}

func (guardWriter) Close() error { return nil }

// answered clears the pending requests that the messages in p answer.
func (g *stdioGuard) answered(p []byte) {
	for _, line := range bytes.Split(p, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var msgs []rpcEnvelope
		if line[0] == '[' {
			json.Unmarshal(line, &msgs)
		} else {
			var env rpcEnvelope
			if json.Unmarshal(line, &env) == nil {
				msgs = append(msgs, env)
			}
		}
		g.mu.Lock()
		for _, m := range msgs {
			if m.Method == nil {
				if key, ok := idKey(m.ID); ok && key != "" {
					delete(g.pending, key)
				}
			}
		}
		g.cond.Broadcast()
		g.mu.Unlock()
	}
}
