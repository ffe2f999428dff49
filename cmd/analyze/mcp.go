package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/faultline/faultline/analysis"
	"github.com/faultline/faultline/web"
)

// mcpInstructions tell the assistant what the server is for.
const mcpInstructions = "faultline analyses an incident from the logs and traces its store holds: " +
	"which service the failures began in (the origin), which followed (the cascade), ranked root-cause candidates " +
	"with evidence, and a runbook per candidate. Start with incident (a window: since, or from/to around an alert's start), " +
	"then trace on one of a candidate's example_traces, then runbook on its runbook.id. patterns groups raw log lines " +
	"someone pasted into error templates. Times are UTC."

// mcpToolDefs are the tools, with descriptions written for a model choosing one.
func mcpToolDefs(s *mcp.Server, t *mcpTools) {
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}
	mcp.AddTool(s, &mcp.Tool{Name: "incident", Title: "Rank root-cause candidates", Annotations: ro,
		Description: "Rank the root-cause candidates of an incident window: for each, the service, failure kind, error signature, " +
			"score, failing traces explained, first seen, evidence in plain words, example trace ids and a runbook id. " +
			"Use it first when something is failing or an alert fired: since=30m for now, or from/to (RFC 3339) for a past alert " +
			"(from = the alert's start minus 15 minutes). Returns the `analyze incident --json` document; candidates best first."},
		mcpHandler(t.incident))
	mcp.AddTool(s, &mcp.Tool{Name: "trace", Title: "Explain one trace", Annotations: ro,
		Description: "Explain one distributed trace in causal order: the origin (first error, after span-tree and clock-skew " +
			"correction), the cascade (who failed because of whom), each error's class, and the suspect the origin points at " +
			"(a timeout points at its callee). Use it on a trace id from an incident candidate's example_traces, or one a user gives. " +
			"Returns the `analyze trace --json` document."},
		mcpHandler(t.trace))
	mcp.AddTool(s, &mcp.Tool{Name: "runbook", Title: "Get a runbook", Annotations: ro,
		Description: "Get the runbook of an incident candidate (its runbook.id) or the generic runbook of a failure kind " +
			"(timeout, db-pool-exhaustion, oom, ...): symptoms, diagnosis steps with commands filled in, mitigation, resolution, " +
			"stop condition. Use it after incident to tell the on-call engineer what to do. Returns the runbook document (markdown field)."},
		mcpHandler(t.runbook))
	mcp.AddTool(s, &mcp.Tool{Name: "patterns", Title: "Group log lines into templates", Annotations: ro,
		Description: "Group raw log lines into error-signature templates (variable parts as <*>), most frequent first, with the " +
			"template id of every line. Use it on log text a user pasted or that a tool returned, to see which few errors a flood " +
			"of lines is made of. Needs no store. Returns the `analyze patterns --json` document."},
		mcpHandler(t.patterns))
}

// newMCPServer is the MCP server of the tools.
func newMCPServer(t *mcpTools) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "faultline", Title: "faultline incident analysis", Version: "1"},
		&mcp.ServerOptions{Instructions: mcpInstructions})
	mcpToolDefs(s, t)
	s.AddReceivingMiddleware(mcpArgs)
	return s
}

// mcpHandler adapts a tool to the SDK: the document as structured content
// and as JSON text, after a short summary; an error becomes a tool error
// (IsError) with its sentence; a panic becomes an internal error.
func mcpHandler[In any](f func(context.Context, In) (any, string, error)) mcp.ToolHandlerFor[In, any] {
	return func(ctx context.Context, _ *mcp.CallToolRequest, in In) (res *mcp.CallToolResult, out any, err error) {
		defer func() {
			if v := recover(); v != nil {
				res, out, err = nil, nil, errors.New("internal error while answering; the details are in the server log")
			}
		}()
		doc, summary, err := f(ctx, in)
		if err != nil {
			return nil, nil, err
		}
		b, err := marshalDoc(doc)
		if err != nil {
			return nil, nil, fmt.Errorf("cannot encode the document: %w", err)
		}
		res = &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: summary}, &mcp.TextContent{Text: string(b)}}}
		return res, json.RawMessage(b), nil
	}
}

// mcpFlags are the flags of `analyze mcp`.
type mcpFlags struct {
	storeFlags
	timeout time.Duration
}

// runMCP serves the tools over stdin and stdout until the client closes
// them (or SIGINT/SIGTERM): `analyze mcp [--store URL] [--timeout 60s]`.
// Logs go to stderr; stdout carries only the protocol.
func runMCP(ctx context.Context, e *env, args []string) int {
	var f mcpFlags
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(e.Stderr)
	f.bind(fs, e)
	f.bindMemory(fs)
	fs.DurationVar(&f.timeout, "timeout", 60*time.Second, "longest analysis per tool call")
	pos, err := parseFlags(fs, args)
	switch {
	case err != nil:
	case len(pos) > 0:
		err = badUsage("mcp takes no arguments, got %q; an assistant starts it and talks MCP over stdin and stdout", truncate(pos[0], 40))
	case f.timeout <= 0:
		err = badUsage("--timeout must be positive")
	}
	if err != nil {
		return fail(e, "mcp", err)
	}
	log := logger(e)
	eng, closeFn, err := f.engine(ctx, false, log)
	if err != nil {
		return fail(e, "mcp", err)
	}
	defer closeFn()
	tools := stdioTools(eng, f.timeout, log)
	// The guard answers malformed lines itself and, at the end of stdin,
	// waits for the answers still due (each call ends within --timeout).
	guard := newStdioGuard(e.Stdin, e.Stdout, f.timeout+mcpDrainGrace)
	go guard.run(ctx)
	tr := &mcp.IOTransport{Reader: guard.Reader(), Writer: guard.Writer(), MaxLineLength: mcpMaxFrame + 2}
	err = newMCPServer(tools).Run(ctx, tr)
	if err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) {
		return fail(e, "mcp", fmt.Errorf("the MCP session ended: %w", err))
	}
	return exitOK
}

// mcpDrainGrace is how much longer than --timeout `analyze mcp` waits at
// the end of stdin for the answers still due.
const mcpDrainGrace = 10 * time.Second

// serveMCP is what `analyze serve` mounts at /mcp (web.Config.MCP): the
// tools over the web's pooled backend, as stateless streamable HTTP with
// JSON answers (no session kept between requests). An open server keeps
// the SDK's DNS-rebinding protection (a request to a loopback address
// naming another host is refused); a protected one, where every call needs
// the token anyway, drops it, so that a reverse proxy that passes its own
// Host header on to 127.0.0.1 works.
func serveMCP(eng *analysis.Engine, log *slog.Logger, protected bool) func(web.Backend) http.Handler {
	return func(b web.Backend) http.Handler {
		tools := &mcpTools{b: b, bounds: eng.Store.Bounds, now: time.Now, log: log}
		srv := newMCPServer(tools)
		return vetHTTP(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
			&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, Logger: log, DisableLocalhostProtection: protected}))
	}
}
