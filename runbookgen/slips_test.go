package runbookgen

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/schema"
)

// silentReport is the demo's incident: fx-rates-api, a third-party API
// that leaves no records, slows down; pricing calls it, and ads, auth and
// frontend fail through pricing.
func silentReport() *rootcause.Report {
	from := time.Date(2026, 12, 2, 1, 17, 0, 0, time.UTC)
	return &rootcause.Report{
		Window: rootcause.Window{From: from, To: from.Add(10 * time.Minute)}, Traces: 102, FailedTraces: 51,
		Candidates: []rootcause.Candidate{{
			ID: "c-fx", Rank: 1, Service: "fx-rates-api", Kind: schema.KindDependencyTimeout, Score: 0.88, Traces: 51,
			FirstSeen:     from.Add(2 * time.Minute),
			Evidence:      []string{"calls to fx-rates-api, which leaves no spans of its own, from pricing took longer"},
			ExampleTraces: []schema.TraceID{"7529a6adaa3843ba0c5788f6e9e55d23"},
			PointedFrom:   []string{"ads", "auth", "frontend", "pricing"},
			EntryPoints:   []string{"frontend GET /auth/search"},
		}},
		Services: []rootcause.ServiceSummary{
			{Service: "fx-rates-api", Records: 0}, {Service: "pricing", Records: 360, Errors: 174},
			{Service: "auth", Records: 306, Errors: 72}, {Service: "ads", Records: 293, Errors: 42}, {Service: "frontend", Records: 664, Errors: 194},
		},
		Edges: []rootcause.Edge{
			{From: "frontend", To: "auth", Calls: 55, Errors: 26}, {From: "frontend", To: "ads", Calls: 40, Errors: 8},
			{From: "auth", To: "pricing", Calls: 16, Errors: 14}, {From: "ads", To: "pricing", Calls: 23, Errors: 12},
			{From: "pricing", To: "fx-rates-api", Calls: 39, Errors: 15}, {From: "pricing", To: "redis-pricing", Calls: 42},
		},
	}
}

// TestRunbookOfSilentDependency: the runbook of a service that leaves no
// records queries what does exist (its caller's lines and client spans,
// client-side metrics), acts on the caller the evidence names, lists as
// callers only those that call it directly, and its analyze commands name
// the store so that they run as written.
func TestRunbookOfSilentDependency(t *testing.T) {
	g := newGen(t, Config{Store: "/var/lib/faultline/prod.db"})
	rep := silentReport()
	md := g.ForCandidate(rep, &rep.Candidates[0]).Markdown
	for _, want := range []string{
		"- **Called by (their calls to it failed):** `pricing`\n",
		"- **Reached through them from:** `ads`, `auth`, `frontend`\n",
		"**Leaves no records of its own:**",
		"http://pricing:8080/actuator/circuitbreakers/fx-rates-api", // the mitigation acts on pricing
		`{service_name="pricing"}`, "WHERE ServiceName = 'pricing'",
		`http_client_request_duration_seconds_bucket{job="pricing", server_address="fx-rates-api"}`,
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the runbook lacks %q", want)
		}
	}
	for _, never := range []string{`service_name="fx-rates-api"`, "ServiceName = 'fx-rates-api'", `job="fx-rates-api"`,
		"http://ads:8080", "http://auth:8080", "http://frontend:8080"} {
		if strings.Contains(md, never) {
			t.Errorf("the runbook has %q: a query on a service with no records, or a control on a service the evidence does not name", never)
		}
	}
	cmds := regexp.MustCompile("analyze (trace|incident) [^`\n]*").FindAllString(md, -1)
	if len(cmds) < 4 {
		t.Fatalf("only %d analyze commands in the runbook: %q", len(cmds), cmds)
	}
	for _, c := range cmds {
		if !strings.HasPrefix(c, "analyze trace --store /var/lib/faultline/prod.db ") && !strings.HasPrefix(c, "analyze incident --store /var/lib/faultline/prod.db ") {
			t.Errorf("%q does not name the store after its subcommand", c)
		}
	}
}

// TestRunbookStoreFlag: a path is made absolute; a URL that carries a
// password is never written into a runbook.
func TestRunbookStoreFlag(t *testing.T) {
	t.Chdir(t.TempDir())
	for raw, want := range map[string]string{
		"":                                   "",
		"/srv/fl.db":                         " --store /srv/fl.db",
		"clickhouse://ch:9000/logs":          " --store clickhouse://ch:9000/logs",
		"clickhouse://u:s3cret@ch:9000/logs": ` --store "$FAULTLINE_STORE"`,
		"clickhouse://ch:9000/logs?password=s3cr": ` --store "$FAULTLINE_STORE"`,
		"/srv/my store.db":                        " --store '/srv/my store.db'",
	} {
		if got := StoreFlag(raw); got != want {
			t.Errorf("StoreFlag(%q) = %q, want %q", raw, got, want)
		}
	}
	if got := StoreFlag("rel.db"); !strings.HasPrefix(got, " --store /") || !strings.HasSuffix(got, "/rel.db") {
		t.Errorf("a relative path gives %q, want it absolute", got)
	}
}

// TestRunbookCountsInWords: one trace is "1 failing trace", never "1
// failing traces".
func TestRunbookCountsInWords(t *testing.T) {
	g := newGen(t, Config{})
	rep := fixedReport(schema.KindTimeout)
	rep.Traces, rep.FailedTraces, rep.Candidates[0].Traces = 1, 1, 1
	md := g.ForCandidate(rep, &rep.Candidates[0]).Markdown
	for _, want := range []string{"1 failing trace ends here", "of 1 trace in the window", "1 trace failed in all", "1 failing trace (100.0% of all 1 trace in the window) ends in this failure"} {
		if !strings.Contains(md, want) {
			t.Errorf("lacks %q", want)
		}
	}
	if m := regexp.MustCompile(`\b1 (failing )?traces\b`).FindString(md); m != "" {
		t.Errorf("the runbook says %q", m)
	}
}

// TestGenericRunbookStore: a generic runbook names the generator's store
// in every analyze command, as an incident's does; without one it says
// which store its commands read, and how to read another.
func TestGenericRunbookStore(t *testing.T) {
	for _, k := range []schema.Kind{schema.KindDependencyTimeout, schema.KindUnknown} {
		rb, err := newGen(t, Config{Store: "/var/lib/faultline/prod.db"}).ForKind(k)
		if err != nil {
			t.Fatal(err)
		}
		cmds := regexp.MustCompile("analyze (trace|incident) [^`\n]*").FindAllString(rb.Markdown, -1)
		if len(cmds) < 3 {
			t.Fatalf("%s: only %d analyze commands: %q", k, len(cmds), cmds)
		}
		for _, c := range cmds {
			if !strings.Contains(c, " --store /var/lib/faultline/prod.db") {
				t.Errorf("%s: %q does not name the store", k, c)
			}
		}
		if strings.Contains(rb.Markdown, "$FAULTLINE_STORE") {
			t.Errorf("%s: names the store and still says where the store comes from", k)
		}
		rb, err = newGen(t, Config{}).ForKind(k)
		if err != nil {
			t.Fatal(err)
		}
		if want := "Its `analyze` commands read the store in `$FAULTLINE_STORE`, else `./faultline.db`"; !strings.Contains(rb.Markdown, want) {
			t.Errorf("%s without a store: no %q", k, want)
		}
	}
}

// TestExplainedHeadline: a candidate's headline is the share it explains,
// never above 100%, where its score (the share plus its symptoms' terms)
// exceeds 1; one ranked on symptoms alone says so; the runbook's header
// shows the share, not the score.
func TestExplainedHeadline(t *testing.T) {
	line := func(pct string) string {
		return "explains " + pct + " of the window's anomalous requests, each weighed by how unusual it is (failing traces that begin here " + pct + ") [explained]"
	}
	for _, tc := range []struct {
		score    float64
		evidence []string
		want     string
	}{
		{1.02, []string{line("92%"), "first error in 51 of 51 failing traces [trace_origin]"}, "explains 92%"},
		{0.05, []string{"its p95 span self time went from 19 ms to 601 ms [latency]", line("2%")}, "explains 2%"},
		{0.004, []string{line("0%")}, "explains <1%"},
		{0.03, []string{"new error template [new_errors]", "explains nothing [explained] but not a share"}, "symptoms only"},
	} {
		c := &rootcause.Candidate{Score: tc.score, Evidence: tc.evidence}
		if got := ExplainedWords(c); got != tc.want {
			t.Errorf("score %.2f, evidence %q: %q, want %q", tc.score, tc.evidence, got, tc.want)
		}
	}
	rep := fixedReport(schema.KindDependencyTimeout)
	rep.Candidates[0].Score = 1.02
	md := newGen(t, Config{}).ForCandidate(rep, &rep.Candidates[0]).Markdown
	if !strings.Contains(md, "rank 1, explains 85% of the window's anomalous requests") || strings.Contains(md, "1.02") {
		t.Errorf("the runbook's header does not show the share explained, or shows the score:\n%s", md[:min(len(md), 1200)])
	}
}
