package runbookgen

import (
	"io/fs"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/schema"
)

// TestEveryKindHasTemplate: each kind in schema.Kinds has its built-in
// template and a human name of its own, and every built-in template is
// named after a kind. A kind added to schema without a runbook fails here.
func TestEveryKindHasTemplate(t *testing.T) {
	names := map[string]bool{}
	for _, k := range schema.Kinds {
		file := "templates/" + string(k) + tmplSuffix
		if _, err := fs.Stat(builtinFS, file); err != nil {
			t.Errorf("kind %q has no built-in runbook %s: %v", k, file, err)
		}
		n := kindName(k)
		if k != schema.KindUnknown && n == kindName(schema.KindUnknown) {
			t.Errorf("kind %q has no human name in kindName", k)
		}
		if names[n] {
			t.Errorf("kind %q shares its human name %q with another kind", k, n)
		}
		names[n] = true
	}
	files, err := fs.Glob(builtinFS, "templates/*"+tmplSuffix)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		base := strings.TrimSuffix(strings.TrimPrefix(f, "templates/"), tmplSuffix)
		if base != strings.TrimSuffix(layoutFile, tmplSuffix) && !schema.Kind(base).Valid() {
			t.Errorf("built-in template %s is not named after a kind", f)
		}
	}
}

// latencyOnly is a candidate with no failing trace and no error template:
// what rootcause writes for slowness or a change in behaviour.
func latencyOnly(k schema.Kind, ids ...schema.TraceID) *rootcause.Report {
	from := time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)
	return &rootcause.Report{
		Window: rootcause.Window{From: from, To: from.Add(30 * time.Minute)},
		Traces: 1200,
		Candidates: []rootcause.Candidate{{
			ID: "cand-1", Rank: 1, Service: "cartservice", Kind: k, Score: 0.61,
			FirstSeen: from.Add(3 * time.Minute),
			Evidence: []string{"calls into cartservice from 2 callers waited 214 ms more than in the baseline " +
				"(p50 3.7 ms → 217 ms); cartservice's own spans did not slow"},
			ExampleTraces: ids,
			PointedFrom:   []string{"frontend"},
			EntryPoints:   []string{"GET /cart"},
		}},
	}
}

// TestExampleTracesNamed: a candidate with example traces, failing or
// not, gets a diagnosis that names the first one, in every kind.
func TestExampleTracesNamed(t *testing.T) {
	g := newGen(t, Config{})
	const first = "5b8efff798038103d269b633813fc60c"
	for _, k := range schema.Kinds {
		for name, rep := range map[string]*rootcause.Report{
			"latency-only": latencyOnly(k, first, "eee19b7ec3c1b1740ad9b2d5c87a5f01"),
			"failing":      fixedReportWithFirst(k, first),
		} {
			rb := g.ForCandidate(rep, &rep.Candidates[0])
			checkSections(t, rb)
			diag := sectionBodies(t, rb.Markdown)["## Diagnosis — first 5 minutes"]
			if !strings.Contains(diag, first) {
				t.Errorf("%s (%s): the diagnosis does not name the first example trace %s:\n%s", k, name, first, diag)
			}
			if strings.Contains(rb.Markdown, phTrace) {
				t.Errorf("%s (%s): the runbook keeps the %s placeholder", k, name, phTrace)
			}
		}
	}
}

func fixedReportWithFirst(k schema.Kind, id schema.TraceID) *rootcause.Report {
	rep := fixedReport(k)
	rep.Candidates[0].ExampleTraces = append([]schema.TraceID{id}, rep.Candidates[0].ExampleTraces...)
	return rep
}

// TestNoExampleTraces: without example traces the diagnosis says how to
// find one, with real commands, and keeps no placeholder or blank.
func TestNoExampleTraces(t *testing.T) {
	g := newGen(t, Config{PublicURL: "https://faultline.example.com"})
	for _, k := range schema.Kinds {
		rep := latencyOnly(k)
		rb := g.ForCandidate(rep, &rep.Candidates[0])
		checkSections(t, rb)
		body := sectionBodies(t, rb.Markdown)
		diag := body["## Diagnosis — first 5 minutes"]
		for _, want := range []string{"No example trace came with this candidate",
			"analyze incident --from 2026-03-14T09:00:00Z --to 2026-03-14T09:30:00Z --service cartservice",
			"https://faultline.example.com/incident?", "analyze trace ID", "WHERE ServiceName = 'cartservice'"} {
			if !strings.Contains(diag, want) {
				t.Errorf("%s: the diagnosis without examples lacks %q:\n%s", k, want, diag)
			}
		}
		if strings.Contains(rb.Markdown, phTrace) || strings.Contains(rb.Markdown, "():") {
			t.Errorf("%s: a placeholder or an empty list is left:\n%s", k, rb.Markdown)
		}
		if strings.Contains(rb.Markdown, "0 failing traces") || strings.Contains(rb.Markdown, "*(none)*") {
			t.Errorf("%s: a latency-only candidate is described as failing or with an empty template", k)
		}
	}
}

// TestTemplatesDocListsKinds: TEMPLATES.md names every kind a team may
// write a template for.
func TestTemplatesDocListsKinds(t *testing.T) {
	doc, err := os.ReadFile("TEMPLATES.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range schema.Kinds {
		if !strings.Contains(string(doc), "`"+string(k)+"`") {
			t.Errorf("TEMPLATES.md does not list the kind %q", k)
		}
	}
}
