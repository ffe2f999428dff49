package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/rootcause"
)

// mcpTestTools opens the enrich store (an incident at enrichT0) and
// builds the stdio tools on it, with the clock just after the incident.
func mcpTestTools(t *testing.T) (*mcpTools, string, []string) {
	t.Helper()
	path, ids := enrichStore(t)
	f := storeFlags{url: path}
	eng, closeFn, err := f.engine(context.Background(), false, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(closeFn)
	tools := stdioTools(eng, 30*time.Second, slog.New(slog.DiscardHandler))
	tools.now = func() time.Time { return enrichT0.Add(20 * time.Minute) }
	return tools, path, ids
}

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, a)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	return reflect.DeepEqual(va, vb)
}

// TestMCPToolsDocumentsAreTheCLIs: each tool returns the document the
// CLI's --json prints, and a summary naming what matters.
func TestMCPToolsDocumentsAreTheCLIs(t *testing.T) {
	tools, path, ids := mcpTestTools(t)
	ctx := context.Background()
	from, to := enrichT0.Add(-5*time.Minute).Format(time.RFC3339), enrichT0.Add(15*time.Minute).Format(time.RFC3339)

	doc, sum, err := tools.incident(ctx, mcpIncidentInput{From: from, To: to, Service: "checkout"})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := marshalDoc(doc)
	code, cli, errs := runCmd(t, "incident", "--store", path, "--json", "--from", from, "--to", to, "--service", "checkout")
	if code != exitOK {
		t.Fatalf("analyze incident: %d %s", code, errs)
	}
	if !sameJSON(t, got, []byte(cli)) {
		t.Errorf("incident tool document differs from analyze incident --json:\n%s\n%s", got, cli)
	}
	if !strings.Contains(sum, "#1 inventory, db-pool-exhaustion") || !strings.Contains(sum, "8 failing") {
		t.Errorf("incident summary: %s", sum)
	}
	// The share explained heads a candidate, and its evidence line is not
	// repeated after it.
	if !strings.Contains(sum, "#1 inventory, db-pool-exhaustion, explains 100% (score ") || strings.Contains(sum, "[explained]") {
		t.Errorf("incident summary does not head candidates with the share explained, once: %s", sum)
	}

	doc, sum, err = tools.trace(ctx, mcpTraceInput{TraceID: ids[0]})
	if err != nil {
		t.Fatal(err)
	}
	got, _ = marshalDoc(doc)
	_, cli, _ = runCmd(t, "trace", "--store", path, "--json", ids[0])
	if !sameJSON(t, got, []byte(cli)) {
		t.Errorf("trace tool document differs from analyze trace --json:\n%s\n%s", got, cli)
	}
	if !strings.Contains(sum, "Origin: inventory") {
		t.Errorf("trace summary: %s", sum)
	}

	doc, sum, err = tools.runbook(ctx, mcpRunbookInput{ID: "db-pool-exhaustion"})
	if err != nil {
		t.Fatal(err)
	}
	got, _ = marshalDoc(doc)
	// The generic runbook names its store, the tool's as the CLI's.
	_, cli, _ = runCmd(t, "runbook", "--store", path, "--json", "db-pool-exhaustion")
	if !sameJSON(t, got, []byte(cli)) {
		t.Errorf("runbook tool document differs from analyze runbook --json")
	}
	if !strings.Contains(sum, "markdown") {
		t.Errorf("runbook summary: %s", sum)
	}

	lines := []string{"2026-03-01T12:00:00Z ERROR payment 4411 declined for order 9", "2026-03-01T12:00:01Z ERROR payment 4412 declined for order 10", "", "INFO started"}
	doc, sum, err = tools.patterns(ctx, mcpPatternsInput{Lines: lines})
	if err != nil {
		t.Fatal(err)
	}
	got, _ = marshalDoc(doc)
	code, cli, errs = runPatternsCmd(t, []byte(strings.Join(lines, "\n")+"\n"), "--json", "-")
	if code != exitOK || !sameJSON(t, got, []byte(cli)) {
		t.Errorf("patterns tool document differs from analyze patterns --json (%d %s):\n%s\n%s", code, errs, got, cli)
	}
	if !strings.Contains(sum, "4 lines") || !strings.Contains(sum, "2×") {
		t.Errorf("patterns summary: %s", sum)
	}
}

// TestMCPToolsRunbookOfACandidate: the runbook id an incident candidate
// carries resolves through the runbook tool.
func TestMCPToolsRunbookOfACandidate(t *testing.T) {
	tools, _, _ := mcpTestTools(t)
	ctx := context.Background()
	doc, _, err := tools.incident(ctx, mcpIncidentInput{Since: "1h"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := marshalDoc(doc)
	var rep struct {
		Candidates []struct {
			Runbook struct{ ID string } `json:"runbook"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal(b, &rep); err != nil || len(rep.Candidates) == 0 || rep.Candidates[0].Runbook.ID == "" {
		t.Fatalf("no candidate runbook: %v %s", err, b)
	}
	_, sum, err := tools.runbook(ctx, mcpRunbookInput{ID: rep.Candidates[0].Runbook.ID})
	if err != nil || !strings.Contains(sum, rep.Candidates[0].Runbook.ID) {
		t.Errorf("runbook of the candidate: %v %s", err, sum)
	}
}

// TestMCPToolsBadInput: every bad input is a tool error with a sentence
// that says what to give instead; nothing panics.
func TestMCPToolsBadInput(t *testing.T) {
	tools, _, _ := mcpTestTools(t)
	ctx := context.Background()
	cases := []struct {
		name string
		call func() error
		want string
	}{
		{"since and from", func() error {
			_, _, err := tools.incident(ctx, mcpIncidentInput{Since: "1h", From: "2026-03-01T12:00:00Z"})
			return err
		}, "not both"},
		{"to alone", func() error {
			_, _, err := tools.incident(ctx, mcpIncidentInput{To: "2026-03-01T12:00:00Z"})
			return err
		}, "to needs from"},
		{"bad from", func() error { _, _, err := tools.incident(ctx, mcpIncidentInput{From: "yesterday"}); return err }, "RFC 3339"},
		{"reversed", func() error {
			_, _, err := tools.incident(ctx, mcpIncidentInput{From: "2026-03-01T12:00:00Z", To: "2026-03-01T11:00:00Z"})
			return err
		}, "after from"},
		{"too wide", func() error {
			_, _, err := tools.incident(ctx, mcpIncidentInput{From: "2026-01-01T00:00:00Z", To: "2026-03-01T00:00:00Z"})
			return err
		}, "widest is 7d"},
		{"bad since", func() error { _, _, err := tools.incident(ctx, mcpIncidentInput{Since: "-5m"}); return err }, "not a positive duration"},
		{"long since", func() error { _, _, err := tools.incident(ctx, mcpIncidentInput{Since: "30d"}); return err }, "too long"},
		{"top", func() error { _, _, err := tools.incident(ctx, mcpIncidentInput{Top: 500}); return err }, "between 1 and 100"},
		{"empty window", func() error {
			_, _, err := tools.incident(ctx, mcpIncidentInput{From: "2026-02-01T00:00:00Z", To: "2026-02-01T01:00:00Z"})
			return err
		}, "the store holds records from 2026-03-01T12:00:00Z"},
		{"bad trace id", func() error { _, _, err := tools.trace(ctx, mcpTraceInput{TraceID: "<script>zz"}); return err }, "is not a trace id"},
		{"unknown trace", func() error {
			_, _, err := tools.trace(ctx, mcpTraceInput{TraceID: strings.Repeat("ab", 16)})
			return err
		}, "no records for trace"},
		{"bad runbook id", func() error { _, _, err := tools.runbook(ctx, mcpRunbookInput{ID: "../../etc/passwd"}); return err }, "neither a failure kind"},
		{"unknown runbook", func() error {
			_, _, err := tools.runbook(ctx, mcpRunbookInput{ID: "checkout-timeout-0123456789ab"})
			return err
		}, "no runbook"},
		{"no lines", func() error { _, _, err := tools.patterns(ctx, mcpPatternsInput{}); return err }, "give the log lines"},
		{"too many lines", func() error {
			_, _, err := tools.patterns(ctx, mcpPatternsInput{Lines: make([]string, mcpMaxLines+1)})
			return err
		}, "too many"},
		{"too many bytes", func() error {
			_, _, err := tools.patterns(ctx, mcpPatternsInput{Lines: []string{strings.Repeat("x", mcpMaxBytes+1)}})
			return err
		}, "MiB"},
	}
	for _, c := range cases {
		err := c.call()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
			continue
		}
		if _, ok := err.(toolError); !ok {
			t.Errorf("%s: %T, want a toolError", c.name, err)
		}
	}
}

// TestMCPToolsBounded: a call waits for the one analysis slot and gives
// up with a sentence, not a hang; waiting behind another analysis it is
// told the server is busy, not that its own analysis took too long (it
// never ran). A runbook lookup does not wait behind analyses; grouping
// log lines does, as an analysis.
func TestMCPToolsBounded(t *testing.T) {
	tools, _, _ := mcpTestTools(t)
	tools.timeout = 50 * time.Millisecond
	tools.slots <- struct{}{} // another analysis holds the slot
	start := time.Now()
	_, _, err := tools.incident(context.Background(), mcpIncidentInput{Since: "1h"})
	if err == nil || !strings.Contains(err.Error(), "busy") || time.Since(start) > 5*time.Second {
		t.Errorf("queued behind an analysis: %v after %v, want the busy sentence", err, time.Since(start))
	}
	if _, _, err := tools.runbook(context.Background(), mcpRunbookInput{ID: "timeout"}); err != nil {
		t.Errorf("a runbook lookup while an analysis runs: %v", err)
	}
	if _, _, err := tools.patterns(context.Background(), mcpPatternsInput{Lines: []string{"ERROR db timeout"}}); err == nil || !strings.Contains(err.Error(), "busy") {
		t.Errorf("patterns while an analysis runs: %v, want it queued as an analysis", err)
	}
	<-tools.slots
	tools.timeout = 30 * time.Second
	if _, _, err := tools.incident(context.Background(), mcpIncidentInput{Since: "1h"}); err != nil {
		t.Errorf("with the slot free: %v", err)
	}
}

// TestMCPPatternsCountsLines: the patterns limit counts lines, not items:
// one item of 4 million lines (1.9 GB and a 160 MB answer) is refused at
// once, as are many items past the limit; a newline-joined item within it
// is grouped line by line.
func TestMCPPatternsCountsLines(t *testing.T) {
	tools, _, _ := mcpTestTools(t)
	big := strings.Repeat("x\n", 4_000_000)
	start := time.Now()
	_, _, err := tools.patterns(context.Background(), mcpPatternsInput{Lines: []string{big}})
	if err == nil || !strings.Contains(err.Error(), "lines is too many") || time.Since(start) > 2*time.Second {
		t.Errorf("one item of 4M lines: %v after %v, want refused at once for its lines", err, time.Since(start))
	}
	if _, _, err := tools.patterns(context.Background(), mcpPatternsInput{Lines: []string{strings.Repeat("x\n", mcpMaxLines)}}); err == nil {
		t.Errorf("one item of %d lines and a trailing one: accepted, want refused", mcpMaxLines+1)
	}
	doc, _, err := tools.patterns(context.Background(), mcpPatternsInput{Lines: []string{"ERROR db timeout after 5s\nERROR db timeout after 7s", "WARN cache miss"}})
	if err != nil || len(doc.(patternsDoc).Lines) != 3 {
		t.Errorf("two items of three lines: %v %+v", err, doc)
	}
}

// TestMCPCommandRegistered: analyze mcp is a command, and refuses
// arguments in one sentence.
func TestMCPCommandRegistered(t *testing.T) {
	code, out, errs := runCmd(t, "mcp", "extra")
	if code != exitUsage || out != "" || strings.Count(errs, "\n") != 1 {
		t.Errorf("mcp extra: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestMCPIncidentDefaultWindow: the incident tool asked for no window
// takes the window of the web's / and analyze incident (web.DefaultSince):
// on a store that holds less than an hour, its newer half, said in the
// summary; it took the last 30 minutes, which left that store no baseline.
func TestMCPIncidentDefaultWindow(t *testing.T) {
	path, _ := enrichStoreAt(t, time.Now().UTC().Add(-20*time.Minute).Truncate(time.Second))
	f := storeFlags{url: path}
	eng, closeFn, err := f.engine(context.Background(), false, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(closeFn)
	tools := stdioTools(eng, 30*time.Second, slog.New(slog.DiscardHandler))

	type window struct{ From, To time.Time }
	var cli, tool struct{ Window window }
	code, out, errs := runCmd(t, "incident", "--store", path, "--json")
	if code != exitOK || json.Unmarshal([]byte(out), &cli) != nil {
		t.Fatalf("analyze incident: exit %d: %s", code, errs)
	}
	doc, sum, err := tools.incident(context.Background(), mcpIncidentInput{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := marshalDoc(doc)
	if err := json.Unmarshal(b, &tool); err != nil {
		t.Fatal(err)
	}
	near := func(a, b time.Time) bool { return a.Sub(b).Abs() <= 5*time.Second }
	if !near(tool.Window.From, cli.Window.From) || !near(tool.Window.To, cli.Window.To) {
		t.Errorf("the tool's default window %v, analyze incident's %v", tool.Window, cli.Window)
	}
	if d := tool.Window.To.Sub(tool.Window.From); d >= 30*time.Minute || d < 5*time.Minute {
		t.Errorf("the default window on a store of 20 minutes lasts %v, want its newer half", d)
	}
	if !strings.Contains(sum, "note: the store's records begin at") {
		t.Errorf("the summary does not say why the window is short:\n%s", sum)
	}
	// A window asked for is kept as asked.
	doc, sum, err = tools.incident(context.Background(), mcpIncidentInput{Since: "30m"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ = marshalDoc(doc)
	if err := json.Unmarshal(b, &tool); err != nil || tool.Window.To.Sub(tool.Window.From) != 30*time.Minute || strings.Contains(sum, "note:") {
		t.Errorf("since 30m gave %v, %v:\n%s", tool.Window, err, sum)
	}
}

// TestMCPIncidentSummaryMore: the candidates past the third are counted
// in words that agree with their number.
func TestMCPIncidentSummaryMore(t *testing.T) {
	rep := &rootcause.Report{}
	for i := range 5 {
		rep.Candidates = append(rep.Candidates, rootcause.Candidate{Rank: i + 1, Service: "s" + strconv.Itoa(i)})
		if i == 3 || i == 4 {
			want := map[int]string{3: "… and 1 more candidate in the document.", 4: "… and 2 more candidates in the document."}[i]
			if sum := incidentSummary(rep); !strings.HasSuffix(sum, want) {
				t.Errorf("%d candidates: %q, want it to end with %q", i+1, sum, want)
			}
		}
	}
}
