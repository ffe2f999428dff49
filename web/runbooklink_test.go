package web

import (
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/correlate"
	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/runbookgen"
	"github.com/faultline/faultline/schema"
)

// TestTraceRunbookButton: the trace page's Runbook button opens the
// incident's runbook for the trace's suspect: the one the incident page's
// link names (?runbook=) when it was written for that suspect, else the
// one the analysis linked; a generic runbook says it is one.
func TestTraceRunbookButton(t *testing.T) {
	b := newFixtureBackend()
	res := fixtureResult()
	res.Runbook = &schema.RunbookRef{ID: "db-pool-exhaustion", Severity: "P2", MTTRTarget: "1h"}
	b.traces[fixtureTrace] = res
	b.runbooks["c-checkout-timeout"] = genericRunbook()
	b.runbooks["c-checkout-timeout"].ID, b.runbooks["c-checkout-timeout"].Service = "c-checkout-timeout", "checkout"
	b.runbooks["c-checkout-timeout"].Generic = false
	h := newTestHandler(t, Config{}, b)
	for _, c := range []struct{ query, href, label string }{
		{"", "/runbooks/db-pool-exhaustion", "Generic runbook: db-pool-exhaustion · P2 · MTTR 1h"},
		{"?runbook=" + fixtureRunbook, "/runbooks/" + fixtureRunbook, "Runbook of the incident for payments · P1 · MTTR 15m"},
		// Another service's runbook, a kind's, one that does not exist: the analysis's link stays.
		{"?runbook=c-checkout-timeout", "/runbooks/db-pool-exhaustion", "Generic runbook"},
		{"?runbook=timeout", "/runbooks/db-pool-exhaustion", "Generic runbook"},
		{"?runbook=nosuch", "/runbooks/db-pool-exhaustion", "Generic runbook"},
		{"?runbook=%22%3E%3Cb%3E", "/runbooks/db-pool-exhaustion", "Generic runbook"},
	} {
		rec := get(h, "/trace/"+string(fixtureTrace)+c.query)
		page := rec.Body.String()
		i := strings.Index(page, `id="trace-runbook"`)
		if rec.Code != 200 || i < 0 {
			t.Fatalf("%s: %d, no runbook button", c.query, rec.Code)
		}
		button := page[i:min(len(page), i+200)]
		if !strings.Contains(button, `href="`+c.href+`"`) || !strings.Contains(button, c.label) {
			t.Errorf("%s: the button is %s; want %s, %q", c.query, button, c.href, c.label)
		}
	}
	// The incident page links each example trace with its candidate's runbook.
	page := get(h, "/incident").Body.String()
	if !strings.Contains(page, `href="/trace/`+string(fixtureTrace)+`?runbook=`+fixtureRunbook+`"`) {
		t.Errorf("the incident page's example trace links do not carry the candidate's runbook")
	}
}

// TestRunbookPageVersion: a candidate's runbook page says which incident
// window it was written for and that its link keeps the text, and links
// the latest; opened by the candidate's id, it links this version's own.
func TestRunbookPageVersion(t *testing.T) {
	b := newFixtureBackend()
	rb := *fixtureRunbookDoc()
	rb.ID, rb.CandidateID = "payments-db-pool-exhaustion-0123456789ab-89abcdef", fixtureRunbook
	rb.From, rb.To = fixtureNow.Add(-time.Hour), fixtureNow
	b.runbooks[rb.ID], b.runbooks[fixtureRunbook] = &rb, &rb
	h := newTestHandler(t, Config{}, b)
	version := get(h, "/runbooks/"+rb.ID).Body.String()
	for _, want := range []string{"Written for the incident window 2026-11-30 03:30–04:30 UTC; this link keeps this text.",
		`<a href="/runbooks/` + fixtureRunbook + `">The latest runbook of this candidate</a>`} {
		if !strings.Contains(version, want) {
			t.Errorf("the version's page lacks %q", want)
		}
	}
	latest := get(h, "/runbooks/"+fixtureRunbook).Body.String()
	if !strings.Contains(latest, "This link follows the latest analysis of this candidate") ||
		!strings.Contains(latest, `<a href="/runbooks/`+rb.ID+`">this version's own link</a>`) {
		t.Errorf("the candidate's page does not link the version it shows")
	}
}

// TestOneErrorInWords: a service with one error reads "1 error".
func TestOneErrorInWords(t *testing.T) {
	b := newFixtureBackend()
	b.update(func(r *rootcause.Report) {
		r.Services = append([]rootcause.ServiceSummary(nil), r.Services...)
		r.Services[5].Errors = 1
	})
	page := get(newTestHandler(t, Config{}, b), "/incident").Body.String()
	if !strings.Contains(page, "1 error / 41,000") || strings.Contains(page, ">1 errors") || strings.Contains(page, " 1 errors") {
		t.Errorf("inventory's one error is not written as 1 error")
	}
}

// TestSilentOriginLinksItsCalls: the origin that left no records of its
// own (a third-party API) links its callers' view of it on /traces.
func TestSilentOriginLinksItsCalls(t *testing.T) {
	b := newFixtureBackend()
	b.update(func(r *rootcause.Report) {
		r.Services = append([]rootcause.ServiceSummary(nil), r.Services...)
		r.Services[0].Records, r.Services[0].Errors, r.Services[0].Buckets = 0, 0, make([]int, 60)
	})
	page := get(newTestHandler(t, Config{}, b), "/incident").Body.String()
	if !strings.Contains(page, `it leaves no records of its own: <a href="/traces?from=2026-11-30T03%3A30%3A00Z&amp;to=2026-11-30T04%3A30%3A00Z#svc-payments">`) {
		t.Errorf("the silent origin's row does not link its callers' calls")
	}
}

// namedStore is the fixture backend naming its store.
type namedStore struct{ *fakeBackend }

func (namedStore) StoreFlag() string { return " --store /srv/faultline.db" }

// TestTraceCLINamesTheStore: the trace page's command to copy names the
// server's store, so that it runs as shown.
func TestTraceCLINamesTheStore(t *testing.T) {
	page := get(newTestHandler(t, Config{}, namedStore{newFixtureBackend()}), "/trace/"+string(fixtureTrace)).Body.String()
	if !strings.Contains(page, "<code class=\"q\">analyze trace --store /srv/faultline.db "+string(fixtureTrace)+"</code>") {
		t.Errorf("the trace page's CLI command does not name the store")
	}
}

// TestTraceShowsIncidentView: where the incident that links a trace (by
// ?runbook=, or the analysis's link to its runbook) names the trace's
// suspect with another kind, the trace page shows the incident's kind and
// says what the trace alone shows; where it ranks another service, the
// page says so and links its runbook; where they agree it adds nothing.
func TestTraceShowsIncidentView(t *testing.T) {
	b := newFixtureBackend()
	res := fixtureResult()
	res.Suspect.Kind = schema.KindCircuitOpen // the breaker in front of payments was open
	b.traces[fixtureTrace] = res
	b.runbooks["c-checkout-timeout"] = &runbookgen.Runbook{ID: "c-checkout-timeout", Service: "checkout", Kind: schema.KindTimeout,
		Severity: "P2", MTTRTarget: "1h", From: fixtureNow.Add(-time.Hour), To: fixtureNow}
	h := newTestHandler(t, Config{}, b)
	suspect := func(page string) string {
		i := strings.Index(page, `<div class="suspect">`)
		j := strings.Index(page, `id="trace-runbook"`)
		if i < 0 || j < i {
			t.Fatalf("no suspect or runbook button on the page")
		}
		return page[i:j]
	}
	for _, q := range []string{"?runbook=" + fixtureRunbook, ""} {
		s := suspect(getOK(t, h, "/trace/"+string(fixtureTrace)+q))
		if !strings.Contains(s, `<h3>Suspect: <strong>payments</strong> <span class="kind kind-db-pool-exhaustion">`) ||
			!strings.Contains(s, "classes the failure of payments as <strong>db-pool-exhaustion</strong>; this trace alone shows <strong>circuit-open</strong> (a breaker") {
			t.Errorf("%q: the suspect does not show the incident's kind beside the trace's:\n%s", q, s)
		}
	}
	s := suspect(getOK(t, h, "/trace/"+string(fixtureTrace)+"?runbook=c-checkout-timeout"))
	if !strings.Contains(s, `The incident (03:30–04:30 UTC) ranks <strong>checkout</strong>`) ||
		!strings.Contains(s, `this trace on its own points at payments. <a href="/runbooks/c-checkout-timeout">`) {
		t.Errorf("opened from another service's candidate: %s", s)
	}
	b.traces[fixtureTrace] = fixtureResult()
	if s := suspect(getOK(t, h, "/trace/"+string(fixtureTrace)+"?runbook="+fixtureRunbook)); strings.Contains(s, "incident-view") {
		t.Errorf("the incident and the trace agree, yet the page notes a difference: %s", s)
	}
	// The incident's kind replaces only a guard's (breaker, bulkhead,
	// retries) and only when it says more.
	for _, k := range [][2]schema.Kind{{schema.KindTimeout, schema.KindDBPoolExhaustion}, {schema.KindCircuitOpen, schema.KindLogAnomaly}} {
		res := fixtureResult()
		res.Suspect.Kind = k[0]
		b.traces[fixtureTrace] = res
		rb := *fixtureRunbookDoc()
		rb.Kind = k[1]
		b.runbooks[fixtureRunbook] = &rb
		if s := suspect(getOK(t, h, "/trace/"+string(fixtureTrace)+"?runbook="+fixtureRunbook)); strings.Contains(s, "incident-view") || !strings.Contains(s, `kind-`+string(k[0])) {
			t.Errorf("trace %s, incident %s: the page shows %s", k[0], k[1], s)
		}
	}
}

// TestRunbookTraceIDsLink: a trace id a runbook names in code (its
// example traces) opens the trace page; other code does not link.
func TestRunbookTraceIDsLink(t *testing.T) {
	sp := parseInline("**Example traces:** `" + string(fixtureTrace) + "`, `9f1c2e3d4b5a6978`, `" + strings.ToUpper(string(fixtureTrace)) + "`")
	var hrefs []string
	for _, s := range sp {
		if s.Kind == "code" {
			hrefs = append(hrefs, s.Href)
		}
	}
	if len(hrefs) != 3 || hrefs[0] != "/trace/"+string(fixtureTrace) || hrefs[1] != "" || hrefs[2] != "" {
		t.Errorf("code spans link %q; want only the trace id's", hrefs)
	}
	b := newFixtureBackend()
	rb := *b.runbooks[fixtureRunbook]
	rb.Markdown += "\n\n- **Example traces:** `" + string(fixtureTrace) + "`\n"
	b.runbooks[fixtureRunbook] = &rb
	page := getOK(t, newTestHandler(t, Config{}, b), "/runbooks/"+fixtureRunbook)
	if want := `<a href="/trace/` + string(fixtureTrace) + `"><code>` + string(fixtureTrace) + `</code></a>`; !strings.Contains(page, want) {
		t.Errorf("the runbook page lacks %s", want)
	}
}

// TestTraceLinksItsIncident: the trace page links back to the incident
// whose runbook its button opens, else to the half hour around the trace.
func TestTraceLinksItsIncident(t *testing.T) {
	b := newFixtureBackend()
	rb := *b.runbooks[fixtureRunbook]
	rb.From, rb.To = fixtureNow.Add(-time.Hour), fixtureNow
	b.runbooks[fixtureRunbook] = &rb
	h := newTestHandler(t, Config{}, b)
	page := getOK(t, h, "/trace/"+string(fixtureTrace)+"?runbook="+fixtureRunbook)
	if want := `<a href="/incident?from=2026-11-30T03%3A30%3A00Z&amp;to=2026-11-30T04%3A30%3A00Z" id="trace-incident">← The incident (03:30–04:30 UTC)</a>`; !strings.Contains(page, want) {
		t.Errorf("the trace page lacks %s", want)
	}
	res := fixtureResult()
	res.Runbook = &schema.RunbookRef{ID: "timeout"}
	b.traces[fixtureTrace] = res
	page = getOK(t, h, "/trace/"+string(fixtureTrace))
	if want := `<a href="/incident?from=2026-11-30T03%3A53%3A00Z&amp;to=2026-11-30T04%3A24%3A00Z" id="trace-incident">← The incident window around it (03:53–04:24 UTC)</a>`; !strings.Contains(page, want) {
		t.Errorf("the trace page lacks %s", want)
	}
}

// TestTraceLearnsFromRecentIncident: a trace opened from elsewhere (the
// traces list), whose own analysis names a suspect with no runbook of the
// incident, shows what the incident page around it, once shown, ranks
// first, and links it; where the trace names that service, nothing.
func TestTraceLearnsFromRecentIncident(t *testing.T) {
	b := newFixtureBackend()
	res := fixtureResult()
	res.Suspect = &correlate.Suspect{Service: "checkout", Kind: schema.KindTimeout, Reason: "its breaker to payments was open"}
	res.Runbook = &schema.RunbookRef{ID: "timeout", Severity: "P2", MTTRTarget: "1h"}
	b.traces[fixtureTrace] = res
	h := newTestHandler(t, Config{}, b)
	if page := getOK(t, h, "/trace/"+string(fixtureTrace)); strings.Contains(page, "incident-view") {
		t.Errorf("no incident shown yet, but the trace page has an incident's view")
	}
	getOK(t, h, "/incident?since=1h")
	page := getOK(t, h, "/trace/"+string(fixtureTrace))
	for _, want := range []string{
		`id="incident-view">The incident (03:30–04:30 UTC) ranks <strong>payments</strong> <span class="kind kind-db-pool-exhaustion">db-pool-exhaustion</span> first; this trace on its own points at checkout. <a href="/runbooks/` + fixtureRunbook + `">`,
		`<a href="/incident?from=2026-11-30T03%3A30%3A00Z&amp;to=2026-11-30T04%3A30%3A00Z" id="trace-incident">← The incident (03:30–04:30 UTC)</a>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("after the incident page, the trace page lacks %s", want)
		}
	}
	b.traces[fixtureTrace] = fixtureResult()
	b.traces[fixtureTrace].Runbook = &schema.RunbookRef{ID: "timeout"}
	if page := getOK(t, h, "/trace/"+string(fixtureTrace)); strings.Contains(page, "incident-view") {
		t.Errorf("the trace names the incident's top candidate, yet the page notes a difference")
	}
}
