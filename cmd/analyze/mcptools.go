package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/faultline/faultline/analysis"
	"github.com/faultline/faultline/correlate"
	"github.com/faultline/faultline/internal/cli"
	"github.com/faultline/faultline/patterns"
	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/runbookgen"
	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store"
	"github.com/faultline/faultline/web"
)

// The MCP tools' limits, named once.
const (
	// mcpMaxWindow is the widest incident window a tool call may ask for
	// (the web's default Config.MaxWindow).
	mcpMaxWindow = 7 * 24 * time.Hour
	// mcpDefaultTop is how many candidates an incident call returns
	// when it names no top (as analyze incident).
	mcpDefaultTop = 5
	// mcpMaxTimeline caps the trace timeline returned, with a warning:
	// a model reads the origin, cascade and suspect, not 20 000 rows.
	mcpMaxTimeline = 2000
	// mcpMaxLines and mcpMaxBytes bound one patterns call.
	mcpMaxLines = 100_000
	mcpMaxBytes = 8 << 20
	// mcpBoundsTimeout bounds the store read that tells a model which
	// stretch the store holds, when its window had nothing.
	mcpBoundsTimeout = 5 * time.Second
)

// mcpTools answers the MCP tools (`analyze mcp` over stdio, /mcp on
// `analyze serve`) over a web.Backend, so that both see the documents
// the CLI's --json prints. It knows nothing of the protocol: each tool
// returns its document, a short summary for the model, or an error whose
// text is one sentence to show it (see toolError).
type mcpTools struct {
	b web.Backend
	// bounds, when set, tells a model that asked for an empty window which
	// stretch the store holds.
	bounds func(ctx context.Context) (first, last time.Time, err error)
	now    func() time.Time
	log    *slog.Logger
	// timeout bounds each call and slots the analyses running at once
	// (stdio); zero and nil when the backend bounds them (serve's pool).
	timeout time.Duration
	slots   chan struct{}
	// ended, when set, is called as an analysis gives its slot back
	// (stdio: the memory goes back to the system once idle).
	ended func()
	// internals: errors the tools do not know show their own text (a
	// local stdio user); otherwise a fixed sentence, and the log has it.
	internals bool
}

type mcpIncidentInput struct {
	Since   string `json:"since,omitempty" jsonschema:"Analyse the last DURATION up to now, e.g. 30m, 2h or 1d. Default: 30m, or on a store that holds less than an hour the newer half of what it holds (the older half is the baseline). Do not combine with from/to."`
	From    string `json:"from,omitempty" jsonschema:"Window start, RFC 3339 (e.g. 2026-11-30T10:00:00Z). Use with to for a past incident, e.g. from an alert's startsAt minus 15 minutes."`
	To      string `json:"to,omitempty" jsonschema:"Window end, RFC 3339 (default now). Needs from."`
	Service string `json:"service,omitempty" jsonschema:"The alerting or user-facing service to start from (optional; candidates are still ranked across all services)."`
	Top     int    `json:"top,omitempty" jsonschema:"How many ranked candidates to return, 1 to 100 (default 5)."`
}

type mcpTraceInput struct {
	TraceID string `json:"trace_id" jsonschema:"The trace id: 32 (or 16) hex characters, or a decimal Datadog id. Incident candidates list some under example_traces."`
}

type mcpRunbookInput struct {
	ID string `json:"id" jsonschema:"A runbook id or candidate id from the incident tool (candidates[].runbook.id or candidates[].id), or a failure kind such as timeout, db-pool-exhaustion, oom for its generic runbook."`
}

type mcpPatternsInput struct {
	Lines []string `json:"lines" jsonschema:"Raw log lines, one per item, as the application wrote them (timestamps and levels are stripped before grouping; an item holding newlines counts as several lines)."`
}

// toolError is an error the model is shown as it is: one sentence on
// what was wrong and what to do.
type toolError struct{ msg string }

func (e toolError) Error() string { return e.msg }

func toolErrorf(format string, a ...any) error { return toolError{fmt.Sprintf(format, a...)} }

// call runs an analysis within the tools' bounds: a slot (when slots is
// set; a call that waits for one longer than the timeout is told the
// server is busy, not that its analysis took too long), then the timeout
// (when set), which starts once the analysis does.
func (t *mcpTools) call(ctx context.Context, f func(context.Context) error) error {
	if t.slots != nil {
		wait, cancel := ctx, context.CancelFunc(func() {})
		if t.timeout > 0 {
			wait, cancel = context.WithTimeout(ctx, t.timeout)
		}
		select {
		case t.slots <- struct{}{}:
			cancel()
			defer func() {
				<-t.slots
				if t.ended != nil {
					t.ended()
				}
			}()
		case <-wait.Done():
			cancel()
			if ctx.Err() != nil {
				return t.explain(ctx.Err())
			}
			return t.explain(web.ErrBusy)
		}
	}
	return t.lookup(ctx, f)
}

// lookup runs f within the timeout (when set) but without a slot: for
// what reads little (a runbook), so that it never waits behind analyses.
func (t *mcpTools) lookup(ctx context.Context, f func(context.Context) error) error {
	if t.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t.timeout)
		defer cancel()
	}
	return t.explain(f(ctx))
}

// pooler is a backend that runs work in its analysis pool (serve's /mcp:
// web's pooled backend).
type pooler interface {
	Do(ctx context.Context, f func(context.Context) error) error
}

// heavy runs work that is not an analysis but as heavy as one (grouping
// log lines) where analyses run: the backend's pool, else the slots.
func (t *mcpTools) heavy(ctx context.Context, f func(context.Context) error) error {
	if p, ok := t.b.(pooler); ok {
		return t.explain(p.Do(ctx, f))
	}
	return t.call(ctx, f)
}

// explain turns an error into the sentence a model is shown. It is the
// one place the tools map errors, as classify is for the web.
func (t *mcpTools) explain(err error) error {
	var te toolError
	var ue usageError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &te):
		return te
	case errors.As(err, &ue):
		return toolError{ue.msg}
	case errors.Is(err, web.ErrBadInput), errors.Is(err, rootcause.ErrBadWindow):
		return toolError{err.Error()}
	case errors.Is(err, web.ErrBusy):
		return toolError{"the server is busy with other analyses; retry in a few seconds"}
	case errors.Is(err, context.DeadlineExceeded):
		return toolError{"the analysis took too long; try a narrower window or a single service"}
	case errors.Is(err, context.Canceled):
		return toolError{"the call was cancelled"}
	case errors.Is(err, store.ErrCorrupt), errors.Is(err, web.ErrUnhealthy):
		return toolError{"the store is damaged (corrupt) and cannot be read; restore it from a backup"}
	}
	t.log.Error("MCP tool failed", "error", err)
	if t.internals {
		return toolErrorf("the analysis failed: %s", errSentence(err))
	}
	return toolError{"internal error; the details are in the server log"}
}

// stdioTools are the tools of `analyze mcp`: one analysis at a time,
// each within timeout, and errors told in full (a local user).
func stdioTools(eng *analysis.Engine, timeout time.Duration, log *slog.Logger) *mcpTools {
	t := &mcpTools{b: newWebBackend(eng), bounds: eng.Store.Bounds, now: time.Now, log: log,
		timeout: timeout, slots: make(chan struct{}, 1), internals: true}
	t.ended = releaseWhenIdle(web.IdleRelease, func() bool { return len(t.slots) > 0 }, releaseMemory)
	return t
}

// incident ranks the root-cause candidates of a window.
func (t *mcpTools) incident(ctx context.Context, in mcpIncidentInput) (any, string, error) {
	q, err := t.incidentQuery(in)
	if err != nil {
		return nil, "", t.explain(err)
	}
	note := ""
	if in.Since == "" && in.From == "" && in.To == "" {
		note = t.defaultWindow(ctx, &q)
	}
	var rep *rootcause.Report
	err = t.call(ctx, func(ctx context.Context) error {
		var err error
		rep, err = t.b.Incident(ctx, q)
		if errors.Is(err, rootcause.ErrNoData) {
			rep, err = &rootcause.Report{}, nil
		}
		return err
	})
	if err != nil {
		return nil, "", err
	}
	if rep.Traces == 0 && len(rep.Candidates) == 0 && len(rep.Services) == 0 {
		return nil, "", t.noRecords(ctx, q)
	}
	summary := incidentSummary(rep)
	if note != "" {
		summary += "\nnote: " + note
	}
	return rep, summary, nil
}

// defaultWindow sets q's window, asked for without one, to the default of
// the web's / and analyze incident (web.DefaultSince): the last 30
// minutes, or on a store that holds less than an hour its newer half, so
// that the older half is the baseline. It returns the note that says so
// ("" for the last 30 minutes). Without the store's bounds (none, or they
// cannot be read in mcpBoundsTimeout) the window stays the last 30 minutes.
func (t *mcpTools) defaultWindow(ctx context.Context, q *web.IncidentQuery) string {
	if t.bounds == nil {
		return ""
	}
	bctx, cancel := context.WithTimeout(ctx, mcpBoundsTimeout)
	defer cancel()
	first, last, err := t.bounds(bctx)
	if err != nil {
		t.log.Warn("cannot read the store's time range for the default window", "error", err)
		return ""
	}
	d, short := web.DefaultSince(first, last, q.To)
	if !short {
		return ""
	}
	q.From = q.To.Add(-d)
	return fmt.Sprintf("the store's records begin at %s, less than an hour ago: the window is the last %s, "+
		"from the middle of what it holds, so that what comes before is its baseline (as the web UI's / and analyze incident)",
		first.UTC().Format(time.RFC3339), cli.FormatDuration(d))
}

// incidentQuery checks the window and top of an incident call.
func (t *mcpTools) incidentQuery(in mcpIncidentInput) (web.IncidentQuery, error) {
	q := web.IncidentQuery{Service: strings.TrimSpace(in.Service), Top: in.Top}
	switch {
	case q.Top == 0:
		q.Top = mcpDefaultTop
	case q.Top < 1 || q.Top > rootcause.MaxTop:
		return q, toolErrorf("top must be between 1 and %d", rootcause.MaxTop)
	}
	now := t.now().UTC().Truncate(time.Second)
	if in.From == "" && in.To == "" {
		since := strings.TrimSpace(in.Since)
		if since == "" {
			since = "30m"
		}
		d, err := cli.ParseDuration(since, mcpMaxWindow)
		if err != nil {
			return q, toolError{cli.DurationError("since", since, err, mcpMaxWindow)}
		}
		q.From, q.To = now.Add(-d), now
		return q, nil
	}
	if in.Since != "" {
		return q, toolErrorf("give either since or from and to, not both")
	}
	if in.From == "" {
		return q, toolErrorf("to needs from (or use since)")
	}
	var err error
	if q.From, err = time.Parse(time.RFC3339, strings.TrimSpace(in.From)); err != nil {
		return q, toolErrorf("from %q is not an RFC 3339 time such as 2026-11-30T10:00:00Z", truncate(in.From, 40))
	}
	q.To = now
	if in.To != "" {
		if q.To, err = time.Parse(time.RFC3339, strings.TrimSpace(in.To)); err != nil {
			return q, toolErrorf("to %q is not an RFC 3339 time such as 2026-11-30T10:30:00Z", truncate(in.To, 40))
		}
	}
	q.From, q.To = q.From.UTC(), q.To.UTC()
	switch {
	case !q.To.After(q.From):
		return q, toolErrorf("to must be after from")
	case q.To.After(q.From.Add(mcpMaxWindow)):
		return q, toolErrorf("the window is %s wide; the widest is %s: narrow it to the incident", spanWords(q.From, q.To), cli.FormatDuration(mcpMaxWindow))
	}
	return q, nil
}

// spanWords is how long from to to is, in words: a duration, or days
// when it is too long for one (time.Duration ends at 292 years).
func spanWords(from, to time.Time) string {
	if to.Sub(from) < 10*365*24*time.Hour {
		return cli.FormatDuration(to.Sub(from))
	}
	return fmt.Sprintf("%d days", (to.Unix()-from.Unix())/86400)
}

// noRecords says that the window had nothing, and which stretch the store
// holds when it can tell.
func (t *mcpTools) noRecords(ctx context.Context, q web.IncidentQuery) error {
	msg := fmt.Sprintf("no records between %s and %s", q.From.Format(time.RFC3339), q.To.Format(time.RFC3339))
	if t.bounds != nil {
		bctx, cancel := context.WithTimeout(ctx, mcpBoundsTimeout)
		defer cancel()
		if first, last, err := t.bounds(bctx); err == nil && !first.IsZero() {
			return toolErrorf("%s; the store holds records from %s to %s: ask for a window inside that", msg,
				first.UTC().Format(time.RFC3339), last.UTC().Format(time.RFC3339))
		} else if err == nil {
			return toolErrorf("%s; the store holds no records yet: is ingest running", msg)
		}
	}
	return toolErrorf("%s; is ingest running, or is the window right", msg)
}

// incidentSummary is a few lines on the ranked candidates.
func incidentSummary(rep *rootcause.Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Incident window %s to %s: %d traces, %d failing.",
		rep.Window.From.UTC().Format(time.RFC3339), rep.Window.To.UTC().Format(time.RFC3339), rep.Traces, rep.FailedTraces)
	if len(rep.Candidates) == 0 {
		b.WriteString(" No root-cause candidate: nothing in the window differs from the baseline.")
	}
	for i, c := range rep.Candidates {
		if i == 3 {
			if n := len(rep.Candidates) - i; n == 1 {
				b.WriteString("\n… and 1 more candidate in the document.")
			} else {
				fmt.Fprintf(&b, "\n… and %d more candidates in the document.", n)
			}
			break
		}
		fmt.Fprintf(&b, "\n#%d %s, %s, %s (score %.2f)", c.Rank, c.Service, c.Kind, runbookgen.ExplainedWords(&c), c.Score)
		if c.Traces > 0 {
			fmt.Fprintf(&b, ", %d failing traces", c.Traces)
		}
		// The share explained is said above: the first line of other
		// evidence follows it.
		for _, ev := range c.Evidence {
			if !strings.HasSuffix(ev, " [explained]") {
				fmt.Fprintf(&b, ": %s", oneLine(ev, 160))
				break
			}
		}
		if c.Runbook != nil {
			fmt.Fprintf(&b, " (runbook %s)", c.Runbook.ID)
		}
	}
	for _, w := range rep.Warnings {
		fmt.Fprintf(&b, "\nwarning: %s", oneLine(w, 200))
	}
	return b.String()
}

// trace explains one trace.
func (t *mcpTools) trace(ctx context.Context, in mcpTraceInput) (any, string, error) {
	id, err := schema.ParseTraceID(strings.TrimSpace(in.TraceID))
	if err != nil {
		return nil, "", toolErrorf("%q is not a trace id: give 32 or 16 hex characters (or a decimal Datadog id)", truncate(in.TraceID, 40))
	}
	var res *correlate.Result
	err = t.call(ctx, func(ctx context.Context) error {
		var err error
		res, err = t.b.Trace(ctx, id)
		if errors.Is(err, schema.ErrNotFound) || err == nil && res == nil {
			return toolErrorf("no records for trace %s in the store; check the id (the incident tool lists example_traces per candidate)", id)
		}
		return err
	})
	if err != nil {
		return nil, "", err
	}
	res = res.CapTimeline(mcpMaxTimeline)
	return res, traceSummary(res), nil
}

// traceSummary is a few lines on the origin, suspect and cascade.
func traceSummary(res *correlate.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Trace %s: %d events", res.TraceID, res.Events)
	if !res.Failed {
		b.WriteString(", no failure.")
	} else {
		b.WriteString(", failed.")
	}
	if o := res.Origin; o != nil {
		fmt.Fprintf(&b, "\nOrigin: %s (%s) at %s: %s", o.Service, o.Class, o.Timestamp.UTC().Format(time.RFC3339Nano), oneLine(o.Message, 200))
	}
	if s := res.Suspect; s != nil {
		fmt.Fprintf(&b, "\nSuspect: %s (%s): %s", s.Service, s.Kind, oneLine(s.Reason, 200))
	}
	if n := len(res.Cascade); n > 0 {
		fmt.Fprintf(&b, "\nCascade: %d errors that followed", n)
		for i, c := range res.Cascade {
			if i == 5 {
				b.WriteString(", …")
				break
			}
			fmt.Fprintf(&b, "; %s (%s)", c.Service, c.Class)
			if c.CausedBy != "" {
				fmt.Fprintf(&b, " because of %s", c.CausedBy)
			}
		}
	}
	if res.Runbook != nil {
		fmt.Fprintf(&b, "\nRunbook: %s", res.Runbook.ID)
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(&b, "\nwarning: %s", oneLine(w, 200))
	}
	return b.String()
}

// runbook returns a runbook by id, or a kind's generic one.
func (t *mcpTools) runbook(ctx context.Context, in mcpRunbookInput) (any, string, error) {
	id := strings.TrimSpace(in.ID)
	if !schema.Kind(id).Valid() && !runbookgen.ValidID(id) {
		return nil, "", toolErrorf("%q is neither a failure kind (such as timeout or db-pool-exhaustion) nor a runbook id; call the incident tool and use a candidate's runbook.id", truncate(in.ID, 40))
	}
	var rb *runbookgen.Runbook
	err := t.lookup(ctx, func(ctx context.Context) error {
		var err error
		rb, err = t.b.Runbook(ctx, id)
		if errors.Is(err, schema.ErrNotFound) || errors.Is(err, runbookgen.ErrBadID) || err == nil && rb == nil {
			return toolErrorf("no runbook %q: call the incident tool first so its candidates get runbooks, then use a runbook.id it returns, or give a failure kind", id)
		}
		return err
	})
	if err != nil {
		return nil, "", err
	}
	sum := fmt.Sprintf("Runbook %s: %s (%s, MTTR target %s). Its Markdown (symptoms, diagnosis, mitigation, resolution) is the document's markdown field.",
		rb.ID, oneLine(rb.Title, 120), rb.Severity, rb.MTTRTarget)
	return rb, sum, nil
}

// patterns groups raw log lines into templates, as analyze patterns does.
// The limits count lines (an item holding newlines is several), and the
// grouping runs where analyses run.
func (t *mcpTools) patterns(ctx context.Context, in mcpPatternsInput) (any, string, error) {
	if len(in.Lines) == 0 {
		return nil, "", toolErrorf("give the log lines to group in lines, one line per item")
	}
	size, lines := 0, 0
	for _, l := range in.Lines {
		size += len(l)
		lines += strings.Count(l, "\n") + 1
	}
	if lines > mcpMaxLines {
		return nil, "", toolErrorf("%d lines is too many for one call; the most is %d: send a sample, or run analyze patterns on the file", lines, mcpMaxLines)
	}
	if size > mcpMaxBytes {
		return nil, "", toolErrorf("the lines add up to %d MiB; the most is %d MiB: send a sample, or run analyze patterns on the file", size>>20, mcpMaxBytes>>20)
	}
	var doc patternsDoc
	err := t.heavy(ctx, func(ctx context.Context) error {
		var err error
		doc, err = groupLines(ctx, in.Lines, lines)
		return err
	})
	if err != nil {
		return nil, "", err
	}
	return doc, patternsSummary(doc), nil
}

// groupLines mines the templates of items (n lines in all).
func groupLines(ctx context.Context, items []string, n int) (patternsDoc, error) {
	m := patterns.NewMiner(patterns.Config{})
	ids := make([]string, 0, n)
	for _, raw := range items {
		for _, line := range strings.Split(raw, "\n") {
			if len(ids)%4096 == 0 && ctx.Err() != nil {
				return patternsDoc{}, ctx.Err()
			}
			line = strings.TrimSuffix(line, "\r")
			if len(line) > patternsMaxLine {
				line = line[:patternsMaxLine]
			}
			id := ""
			if msg := patterns.StripHeader(line); msg != "" {
				id = m.Add(msg)
			}
			ids = append(ids, id)
		}
	}
	doc := patternsDoc{Templates: m.Templates(), Lines: make([]string, len(ids))}
	for i, id := range ids {
		if tp, ok := m.Lookup(id); ok {
			doc.Lines[i] = tp.ID
		}
	}
	return doc, nil
}

func patternsSummary(doc patternsDoc) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d lines, %d templates (most frequent first; <*> marks a variable part):", len(doc.Lines), len(doc.Templates))
	for i, tp := range doc.Templates {
		if i == 5 {
			fmt.Fprintf(&b, "\n… and %d more in the document.", len(doc.Templates)-i)
			break
		}
		fmt.Fprintf(&b, "\n%d× %s  %s", tp.Count, tp.ID, oneLine(tp.Template, 200))
	}
	return b.String()
}

// marshalDoc is the document as analyze … --json prints it (compact).
func marshalDoc(doc any) ([]byte, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return []byte(strings.TrimSuffix(b.String(), "\n")), nil
}
