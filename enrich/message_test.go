package enrich

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/schema"
	"github.com/slack-go/slack"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const publicURL = "https://faultline.example.com"

var testNow = time.Date(2026, 11, 30, 10, 20, 0, 0, time.UTC)

// knownReport is the analysis of the checkout incident: the payments
// database pool ran dry, the gateway and checkout cascaded.
func knownReport() *rootcause.Report {
	t0 := time.Date(2026, 11, 30, 10, 2, 13, 0, time.UTC)
	return &rootcause.Report{
		Window: rootcause.Window{From: testNow.Add(-35 * time.Minute), To: testNow},
		Traces: 1234, FailedTraces: 210,
		Candidates: []rootcause.Candidate{
			{ID: "c-7f3a", Rank: 1, Service: "payments-db-proxy", Operation: "SELECT orders", Kind: schema.KindDBPoolExhaustion,
				Signature: "s1", Template: "pool exhausted: timed out after <*>ms waiting for a connection (max=<*>)", Score: 0.87,
				Traces: 180, FirstSeen: t0,
				Evidence: []string{"explains 85% of the window's anomalous requests, each weighed by how unusual it is (failing traces that begin here 85%) [explained]", "first error in 180 of 210 failing traces", "onset 10:02:13, 2m17s before the alert",
					"pool stats: active=50/50 waiting=212 <pg_stat_activity>", "never seen in the baseline"},
				Runbook:       &schema.RunbookRef{ID: "rb-db-pool-exhaustion-7f3a", Severity: "P1", MTTRTarget: "15m", URL: "/runbooks/rb-db-pool-exhaustion-7f3a"},
				ExampleTraces: []schema.TraceID{"4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7a3ce929d0e0e4736"}},
			{ID: "c-19bd", Rank: 2, Service: "payment-gateway", Kind: schema.KindDependencyTimeout, Signature: "s2",
				Template: "call to payments-db-proxy exceeded 3000ms", Score: 0.41, Traces: 150, FirstSeen: t0.Add(3 * time.Second),
				Evidence:      []string{"explains 40% of the window's anomalous requests, each weighed by how unusual it is (failing traces that begin here 40%) [explained]", "timeouts point at payments-db-proxy", "retries x3 amplify load"},
				Runbook:       &schema.RunbookRef{ID: "rb-dependency-timeout-19bd", Severity: "P2", MTTRTarget: "1h", URL: "/runbooks/rb-dependency-timeout-19bd"},
				ExampleTraces: []schema.TraceID{"4bf92f3577b34da6a3ce929d0e0e4736"}},
			{ID: "c-22aa", Rank: 3, Service: "checkout", Kind: schema.KindCircuitOpen, Signature: "s3",
				Template: "circuit breaker is OPEN for payment-gateway", Score: 0.22, Traces: 96, FirstSeen: t0.Add(41 * time.Second),
				Evidence: []string{"fast failures with no downstream error"},
				Runbook:  &schema.RunbookRef{ID: "rb-circuit-open-22aa", Severity: "P2", MTTRTarget: "1h", URL: "/runbooks/rb-circuit-open-22aa"}},
			{ID: "c-9999", Rank: 4, Service: "frontend", Kind: schema.KindTransient, Signature: "s4", Score: 0.05, Traces: 12, FirstSeen: t0.Add(time.Minute)},
		},
	}
}

func analysisOf(g *Group, rep *rootcause.Report, err error) Analysis {
	from, to := g.Window(testNow, 15*time.Minute, 6*time.Hour)
	return Analysis{From: from, To: to, Report: rep, Err: err}
}

func marshalMessage(t *testing.T, m *Message) []byte {
	t.Helper()
	b, err := m.JSON()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run with -update after checking):\n%s", name, cut(string(got), 2000))
	}
}

func TestMessageGolden(t *testing.T) {
	g := mustParse(t, "alertmanager_firing.json")
	m := BuildMessage(g, analysisOf(g, knownReport(), nil), MessageOptions{PublicURL: publicURL, Now: testNow})
	golden(t, "checkout_firing.golden", marshalMessage(t, m))
	var txt bytes.Buffer
	if err := WriteText(&txt, m); err != nil {
		t.Fatal(err)
	}
	golden(t, "checkout_firing.txt.golden", txt.Bytes())
}

func TestMessageContent(t *testing.T) {
	g := mustParse(t, "alertmanager_firing.json")
	m := BuildMessage(g, analysisOf(g, knownReport(), nil), MessageOptions{PublicURL: publicURL, Now: testNow})
	all := string(marshalMessage(t, m))
	for _, want := range []string{
		`CheckoutHighErrorRate (critical)`,
		`*Likely origin:* *payments-db-proxy*`,
		`behind 180 of 210 failing traces`,
		`<https://faultline.example.com/runbooks/rb-db-pool-exhaustion-7f3a|Runbook rb-db-pool-exhaustion-7f3a (P1, MTTR 15m)>`,
		`<https://faultline.example.com/trace/4bf92f3577b34da6a3ce929d0e0e4736|`,
		`<https://faultline.example.com/trace/00f067aa0ba902b7a3ce929d0e0e4736|`,
		`<https://faultline.example.com/incident?from=2026-11-30T09%3A49%3A30Z&amp;to=2026-11-30T10%3A20%3A00Z&amp;service=checkout|`,
		`:link: link from the alert: <https://wiki.example.com/runbooks/checkout-high-error-rate|wiki.example.com>`,
		`&lt;pg_stat_activity&gt;`,
		`*3. checkout*`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("message lacks %s", want)
		}
	}
	if strings.Contains(all, "frontend") {
		t.Error("a fourth candidate is shown; want the top three")
	}
	if strings.Count(all, "/trace/") != 2 {
		t.Errorf("%d trace links, want 2", strings.Count(all, "/trace/"))
	}
}

func TestMessageWithoutAnalysisStillCarriesAlert(t *testing.T) {
	g := mustParse(t, "alertmanager_firing.json")
	cases := map[string]struct {
		rep  *rootcause.Report
		err  error
		want string
	}{
		"no data":    {nil, rootcause.ErrNoData, "holds no logs or spans between 09:49:30 UTC and 10:20:00 UTC"},
		"store down": {nil, errors.New("cannot open /var/lib/faultline.db: disk I/O error"), "could not read its store"},
		"no failing": {&rootcause.Report{Traces: 10}, nil, "No failing traces"},
	}
	for name, c := range cases {
		m := BuildMessage(g, analysisOf(g, c.rep, c.err), MessageOptions{PublicURL: publicURL, Now: testNow})
		all := string(marshalMessage(t, m))
		for _, want := range []string{c.want, "CheckoutHighErrorRate", "Checkout error rate above 2%", "checkout-high-error-rate", "/incident?"} {
			if !strings.Contains(all, want) {
				t.Errorf("%s: message lacks %q", name, want)
			}
		}
		if strings.Contains(all, "/var/lib") {
			t.Errorf("%s: internals leak into the message", name)
		}
	}
}

func TestMessageResolvedShowsDuration(t *testing.T) {
	g := mustParse(t, "alertmanager_resolved.json")
	m := BuildMessage(g, analysisOf(g, knownReport(), nil), MessageOptions{PublicURL: publicURL, Now: testNow})
	all := string(marshalMessage(t, m))
	if !strings.Contains(all, "RESOLVED: CheckoutHighErrorRate") || !strings.Contains(all, "Resolved after 23m45s") {
		t.Errorf("resolved message lacks its header or duration: %s", cut(all, 600))
	}
}

// TestMessageHostileTextEscapedAndCut feeds log text that tries to
// mention everyone, forge links and blow the limits.
func TestMessageHostileTextEscapedAndCut(t *testing.T) {
	g := mustParse(t, "alertmanager_firing.json")
	g.Title = strings.Repeat("T", 400)
	g.Summary = "<!channel> & <https://evil.example|click> " + strings.Repeat("é", 5000)
	g.RunbookURL = "javascript:alert(1)"
	rep := knownReport()
	rep.Candidates[0].Service = "<@U123>"
	rep.Candidates[0].Evidence = []string{strings.Repeat("<&>", 2000), "line\nbreak `code`"}
	rep.Candidates[0].Template = strings.Repeat("`x", 1000)
	m := BuildMessage(g, analysisOf(g, rep, nil), MessageOptions{PublicURL: publicURL, Now: testNow})
	all := string(marshalMessage(t, m))
	for _, bad := range []string{"<!channel>", "<https://evil.example|", "<@U123>", "javascript:alert(1)|"} {
		if strings.Contains(all, bad) {
			t.Errorf("unescaped %q reached the message", bad)
		}
	}
	checkLimits(t, m)
}

func checkLimits(t *testing.T, m *Message) {
	t.Helper()
	if n := len(m.Blocks.BlockSet); n > maxBlocks || n == 0 {
		t.Errorf("%d blocks", n)
	}
	for _, bl := range m.Blocks.BlockSet {
		switch x := bl.(type) {
		case *slack.HeaderBlock:
			if n := utf8.RuneCountInString(x.Text.Text); n > maxHeaderText {
				t.Errorf("header of %d characters", n)
			}
		case *slack.SectionBlock:
			if n := utf8.RuneCountInString(x.Text.Text); n > maxSectionText {
				t.Errorf("section of %d characters", n)
			}
			if strings.Count(x.Text.Text, "`")%2 != 0 {
				t.Errorf("unbalanced code span in %q", cut(x.Text.Text, 80))
			}
			for _, f := range x.Fields {
				if n := utf8.RuneCountInString(f.Text); n > maxFieldText {
					t.Errorf("field of %d characters", n)
				}
			}
		}
	}
	if !utf8.ValidString(m.Text) {
		t.Error("fallback text is not valid UTF-8")
	}
}

func TestCutMrkdwnKeepsEntitiesAndLinks(t *testing.T) {
	for _, c := range []struct{ in string }{
		{strings.Repeat("a", 95) + "&amp;bbbbbbbb"},
		{strings.Repeat("a", 90) + "<https://x.example/a|label long>"},
	} {
		got := cutMrkdwn(c.in, 100)
		if utf8.RuneCountInString(got) > 100 || strings.HasSuffix(strings.TrimSuffix(got, ellipsis), "&am") ||
			strings.Count(got, "<") != strings.Count(got, ">") {
			t.Errorf("cutMrkdwn(%q) = %q", c.in, got)
		}
	}
}

func TestMessageCapsBlocks(t *testing.T) {
	g := mustParse(t, "alertmanager_firing.json")
	rep := knownReport()
	for i := 0; i < 80; i++ {
		rep.Candidates = append(rep.Candidates, rep.Candidates[1])
	}
	m := BuildMessage(g, analysisOf(g, rep, nil), MessageOptions{PublicURL: publicURL, Top: 80, Now: testNow})
	checkLimits(t, m)
	if _, ok := m.Blocks.BlockSet[len(m.Blocks.BlockSet)-1].(*slack.ContextBlock); !ok {
		t.Error("the context line was dropped by the cap")
	}
}

func TestMessageRoundTrip(t *testing.T) {
	g := mustParse(t, "grafana_firing.json")
	m := BuildMessage(g, analysisOf(g, knownReport(), nil), MessageOptions{PublicURL: publicURL, Now: testNow})
	var back Message
	if err := json.Unmarshal(marshalMessage(t, m), &back); err != nil || len(back.Blocks.BlockSet) != len(m.Blocks.BlockSet) {
		t.Errorf("a stored message does not read back: %v", err)
	}
}

// TestMessageSaysWhatTheAnalysisLeftOut: the report's warnings (a window
// cut at the record limit first among them) are in the message with their
// numbers, at most maxCaveats of them; a report without any adds nothing.
func TestMessageSaysWhatTheAnalysisLeftOut(t *testing.T) {
	g := mustParse(t, "alertmanager_firing.json")
	cutWarning := "the window holds more than 5000000 records: only the newest 5000000, from 2026-11-30T10:05:00Z, were read, " +
		"and 2026-11-30T09:49:30Z to 2026-11-30T10:05:00Z is not in this analysis; narrow the window"
	rep := knownReport()
	rep.Warnings = []string{cutWarning, "the baseline is thin: 2.0 minutes of data", "third", "fourth", "fifth"}
	all := string(marshalMessage(t, BuildMessage(g, analysisOf(g, rep, nil), MessageOptions{PublicURL: publicURL, Now: testNow})))
	for _, want := range []string{":warning: " + cutWarning, "the baseline is thin", "third", "…and 2 more on the incident page."} {
		if !strings.Contains(all, want) {
			t.Errorf("message lacks %q", want)
		}
	}
	if strings.Contains(all, "fourth") {
		t.Errorf("more than %d warnings shown", maxCaveats)
	}
	plain := string(marshalMessage(t, BuildMessage(g, analysisOf(g, knownReport(), nil), MessageOptions{PublicURL: publicURL, Now: testNow})))
	if strings.Contains(plain, ":warning:") {
		t.Error("a report without warnings shows one")
	}
}
