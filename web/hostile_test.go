package web

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/faultline/faultline/correlate"
	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/runbookgen"
	"github.com/faultline/faultline/schema"
	"golang.org/x/net/html"
)

// attacks are the strings log text may carry.
func attacks() []string {
	return []string{
		`<script>alert(1)</script>`,
		`javascript:alert(1)`,
		`"><img src=x onerror=alert(1)>`,
		`'><svg onload=alert(1)>`,
		"broken \xff\xfe\xc3( utf-8",
		`</textarea></title><style>*{}</style>`,
		`{{.}} ${alert(1)} \u003cscript\u003e`,
	}
}

// hostileBackend fills every text field of the fixtures with attack strings.
func hostileBackend() *fakeBackend {
	a := attacks()
	pick := func(i int) string { return a[i%len(a)] }
	rep := fixtureReport()
	rep.Warnings = a
	for i := range rep.Candidates {
		c := &rep.Candidates[i]
		c.ID, c.Service, c.Operation, c.Template = pick(i), pick(i+1), pick(i+2), pick(i+3)
		c.Kind, c.Signature = schema.Kind(pick(i+4)), schema.Signature(pick(i+5))
		c.Evidence, c.PointedFrom, c.EntryPoints = a, a, a
		c.Signals = []rootcause.Signal{{Name: pick(i), Reason: pick(i + 1)}}
		c.ExampleTraces = []schema.TraceID{schema.TraceID(pick(i + 2))}
		c.Runbook = &schema.RunbookRef{ID: pick(i + 1), Severity: pick(i + 2), MTTRTarget: pick(i + 3), URL: "javascript:alert(1)"}
	}
	for i := range rep.Services {
		rep.Services[i].Service, rep.Services[i].Role = pick(i), pick(i+1)
	}
	for i := range rep.Edges {
		rep.Edges[i].From, rep.Edges[i].To = pick(i), pick(i+1)
	}
	res := fixtureResult()
	res.Services, res.Warnings = a, a
	res.Origin.Service, res.Origin.Message, res.Origin.Class, res.Origin.Operation = pick(0), pick(2), schema.Kind(pick(3)), pick(1)
	res.Suspect = &correlate.Suspect{Service: pick(1), Kind: schema.Kind(pick(2)), Reason: pick(3)}
	for i := range res.Cascade {
		e := &res.Cascade[i]
		e.Service, e.Message, e.CausedBy, e.Class = pick(i), pick(i+1), pick(i+2), schema.Kind(pick(i+3))
	}
	for i := range res.Timeline {
		e := &res.Timeline[i]
		e.Service, e.Message, e.Severity, e.Type, e.Role = pick(i), pick(i+1), pick(i+2), pick(i+3), pick(i+4)
		e.SpanID, e.ParentID, e.Class = schema.SpanID(pick(i+5)), schema.SpanID(pick(i+6)), schema.Kind(pick(i))
		e.Attrs = map[string]string{pick(i): pick(i + 1), "msg": pick(i + 2)}
	}
	res.Timeline[7].Role = "origin"
	res.Runbook = &schema.RunbookRef{ID: pick(1), Severity: pick(2), MTTRTarget: pick(3)}
	md := "# " + strings.Join(a, "\n\n## ") + "\n\n" +
		"[click](javascript:alert(1)) [c2](JaVaScRiPt:alert(1)) [c3]( javascript:alert(1)) [c4](data:text/html,<script>alert(1)</script>) " +
		"[c5](vbscript:x) [c6](//evil.example/x) <javascript:alert(1)>\n\n<img src=x onerror=alert(1)>\n\n" +
		"```\n<script>alert(1)</script>\n```\n\n| a | b |\n|---|---|\n| <b onmouseover=alert(1)> | `x` |\n"
	rb := &runbookgen.Runbook{ID: fixtureRunbook, Title: pick(0), Kind: schema.Kind(pick(2)), Service: pick(3), Severity: pick(1),
		SeverityReason: pick(4), MTTRTarget: pick(5), Markdown: md, AlertRunbookURL: "javascript:alert(1)"}
	// Every edge slowed, so that its names reach the labels and the table.
	var edges []EdgeTime
	for _, e := range rep.Edges {
		edges = append(edges, EdgeTime{From: e.From, To: e.To, Calls: 10, P95Ms: 5000, BaseCalls: 10, BaseP95Ms: 100})
	}
	return &fakeBackend{report: rep, traces: map[schema.TraceID]*correlate.Result{fixtureTrace: res},
		runbooks: map[string]*runbookgen.Runbook{fixtureRunbook: rb}, edges: edges}
}

func TestHostileTextIsInert(t *testing.T) {
	h := newTestHandler(t, Config{PublicURL: "https://faultline.example"}, hostileBackend())
	pages := []string{
		"/incident", "/incident?service=%3Cscript%3Ealert(1)%3C/script%3E",
		"/trace/" + string(fixtureTrace), "/runbooks/" + fixtureRunbook,
		"/trace/%22%3E%3Cimg%20src=x%20onerror=alert(1)%3E", "/trace?id=%3Cscript%3E", "/runbooks/%3Cscript%3E",
		"/incident?since=%3Cscript%3Ealert(1)%3C/script%3E", "/incident?from=%22%3E%3Cimg%20onerror=x%3E",
		"/login?next=javascript:alert(1)",
	}
	for _, p := range pages {
		rec := get(h, p)
		if rec.Code >= 500 {
			t.Errorf("%s: status %d", p, rec.Code)
		}
		for _, pr := range inertProblems(rec.Body.Bytes()) {
			t.Errorf("%s: %s", p, pr)
		}
	}
	for _, p := range pages[:4] {
		if body := get(h, p).Body.String(); !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
			t.Errorf("%s: the escaped attack text is missing, so the test fed nothing through", p)
		}
	}
	for _, p := range []string{"/api/v1/incident", "/api/v1/trace/" + string(fixtureTrace), "/api/v1/runbooks/" + fixtureRunbook} {
		body := get(h, p).Body.String()
		if strings.Contains(body, "<script") || strings.Contains(body, "<img") || !utf8.ValidString(body) {
			t.Errorf("%s: JSON carries raw markup or invalid UTF-8: %.300s", p, body)
		}
	}
	raw := get(h, "/runbooks/"+fixtureRunbook+".md")
	if ct := raw.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/markdown") || raw.Header().Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("raw Markdown served as %q without nosniff", ct)
	}
}

// inertProblems parses a page and lists anything that could run: an
// event-handler attribute, a script that is not our own file, a style
// element or attribute, a URL attribute with a dangerous scheme, or
// invalid UTF-8.
func inertProblems(body []byte) []string {
	var out []string
	if !utf8.Valid(body) {
		out = append(out, "invalid UTF-8 in page")
	}
	z := html.NewTokenizer(bytes.NewReader(body))
	inScript := false
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return out
		}
		tok := z.Token()
		switch tt {
		case html.TextToken:
			if inScript && strings.TrimSpace(tok.Data) != "" {
				out = append(out, "inline script content "+tok.Data)
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			out = append(out, tagProblems(tok)...)
			inScript = tok.Data == "script"
		case html.EndTagToken:
			inScript = false
		}
	}
}

func tagProblems(tok html.Token) []string {
	var out []string
	switch tok.Data {
	case "style", "iframe", "object", "embed", "img", "base":
		out = append(out, "unexpected <"+tok.Data+"> element")
	case "script":
		if src := attrVal(tok, "src"); !strings.HasPrefix(src, "/static/") {
			out = append(out, "script not from /static/: "+tok.String())
		}
	}
	for _, a := range tok.Attr {
		key := strings.ToLower(a.Key)
		if strings.HasPrefix(key, "on") || key == "style" || key == "srcdoc" || key == "formaction" {
			out = append(out, "dangerous attribute "+a.Key+" on <"+tok.Data+">")
		}
		if key == "href" || key == "src" || key == "action" || key == "xlink:href" {
			v := strings.ToLower(strings.TrimSpace(a.Val))
			safe := strings.HasPrefix(v, "/") && !strings.HasPrefix(v, "//") || strings.HasPrefix(v, "#") ||
				strings.HasPrefix(v, "https://") || strings.HasPrefix(v, "http://") || strings.HasPrefix(v, "?")
			if !safe {
				out = append(out, "unsafe URL "+a.Key+"="+a.Val+" on <"+tok.Data+">")
			}
		}
	}
	return out
}

// TestInertProblemsCatches makes sure the checker above can fail.
func TestInertProblemsCatches(t *testing.T) {
	for _, bad := range []string{
		`<p onclick="x()">`, `<script>alert(1)</script>`, `<a href="javascript:alert(1)">`, `<a href=" JAVASCRIPT:x">`,
		`<img src=x>`, `<div style="x">`, `<a href="//evil.example">`, "<p>\xff</p>", `<svg><a xlink:href="data:x">`,
	} {
		if len(inertProblems([]byte(bad))) == 0 {
			t.Errorf("inertProblems(%q) found nothing", bad)
		}
	}
	if p := inertProblems([]byte(`<script src="/static/app.js"></script><a href="/trace/x">x</a>`)); len(p) != 0 {
		t.Errorf("false positives: %v", p)
	}
}

func attrVal(tok html.Token, key string) string {
	for _, a := range tok.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func TestSafeHref(t *testing.T) {
	for raw, want := range map[string]string{
		"https://grafana.example.com/d/pg?x=1": "https://grafana.example.com/d/pg?x=1",
		"http://a.example":                     "http://a.example",
		"/trace/abc":                           "/trace/abc",
		"#h-diagnosis":                         "#h-diagnosis",
		"javascript:alert(1)":                  "",
		"JaVaScRiPt:alert(1)":                  "",
		" javascript:alert(1)":                 "",
		"java\tscript:alert(1)":                "",
		"data:text/html,x":                     "",
		"vbscript:x":                           "",
		"//evil.example":                       "",
		"https:evil":                           "",
		"mailto:a@b":                           "",
		"a:b/c":                                "",
	} {
		if got := safeHref(raw); got != want {
			t.Errorf("safeHref(%q) = %q, want %q", raw, got, want)
		}
	}
}

func TestMarkdownBlocks(t *testing.T) {
	b := parseMarkdown("# Title\n\ntext with `code` and **bold** and [a](https://x.example)\n\n- one\n- two\n  continued\n\n1. first\n2. second\n\n```sh\nkubectl get pods\n```\n\n| h1 | h2 |\n|---|---|\n| c1 | c2 |\n\n> quote\n\n---\n")
	var kinds []string
	for _, x := range b {
		kinds = append(kinds, x.Kind)
	}
	if got := strings.Join(kinds, ","); got != "h,p,ul,ol,code,table,quote,hr" {
		t.Fatalf("blocks = %s", got)
	}
	if b[4].Text != "kubectl get pods" || b[4].Lang != "sh" {
		t.Errorf("code block = %+v", b[4])
	}
	if len(b[2].Items) != 2 || b[2].Items[1][0].Text != "two continued" {
		t.Errorf("list = %+v", b[2].Items)
	}
	sp := b[1].Spans
	if len(sp) != 6 || sp[1].Kind != "code" || sp[3].Kind != "strong" || sp[5].Kind != "link" || sp[5].Href != "https://x.example" {
		t.Errorf("inline spans = %+v", sp)
	}
	nested := parseInline("**3. Check `svc` itself:** then [a **b**](/x) and [bad](javascript:x)")
	if len(nested) != 5 || len(nested[0].Children) != 3 || nested[0].Children[1].Kind != "code" ||
		nested[2].Kind != "link" || nested[2].Children[1].Kind != "strong" || nested[4].Kind != "em" || nested[4].Href != "" {
		t.Errorf("nested spans = %+v", nested)
	}
	if len(b[5].Header) != 2 || len(b[5].Rows) != 1 {
		t.Errorf("table = %+v", b[5])
	}
}

func TestRunbookPageRendersCommandsCopyable(t *testing.T) {
	h := newTestHandler(t, Config{}, newFixtureBackend())
	body := get(h, "/runbooks/"+fixtureRunbook).Body.String()
	for _, want := range []string{
		`<code id="code-1">analyze trace ` + string(fixtureTrace) + `</code>`,
		`data-copy-from="code-1"`, `data-copy-from="code-2"`,
		`SELECT state, count(*) FROM pg_stat_activity WHERE datname = &#39;payments&#39; GROUP BY state;`,
		`<a href="https://grafana.example.com/d/pg" rel="noopener noreferrer">the pool dashboard</a>`,
		`href="https://wiki.example.com/runbooks/payments"`, `MTTR target <strong>15m</strong>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("runbook page lacks %s", want)
		}
	}
	if rec := get(h, "/runbooks/"+fixtureRunbook); rec.Code != http.StatusOK {
		t.Errorf("status %d", rec.Code)
	}
}

// TestAlertLinkIsNotOurRunbook: a runbook_url an alert carried is shown as
// a link from the alert, with its host, not as faultline's runbook.
func TestAlertLinkIsNotOurRunbook(t *testing.T) {
	b := newFixtureBackend()
	rb := *b.runbooks[fixtureRunbook]
	if err := rb.LinkAlertRunbook("https://evil.example/phish"); err != nil {
		t.Fatal(err)
	}
	b.runbooks[fixtureRunbook] = &rb
	body := get(newTestHandler(t, Config{}, b), "/runbooks/"+fixtureRunbook).Body.String()
	if n := strings.Count(body, `href="https://evil.example/phish"`); n != 1 {
		t.Errorf("the alert's link appears %d times, want once, marked as from the alert", n)
	}
	if strings.Contains(body, "Alert's runbook") || !strings.Contains(body, "Link from the alert") ||
		!strings.Contains(body, `rel="noopener noreferrer nofollow">evil.example</a>`) {
		t.Errorf("the alert's link is not marked as coming from the alert:\n%s", body[strings.Index(body, "<main"):][:1500])
	}
}
