package runbookgen

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/faultline/faultline/schema"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

func newGen(t *testing.T, cfg Config) *Generator {
	t.Helper()
	g, err := New(cfg, nil)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return g
}

// TestGolden pins every kind's runbook on the fixed incident.
func TestGolden(t *testing.T) {
	g := newGen(t, Config{PublicURL: "https://faultline.example.com/"})
	for _, k := range schema.Kinds {
		t.Run(string(k), func(t *testing.T) {
			rep := fixedReport(k)
			got := g.ForCandidate(rep, &rep.Candidates[0]).Markdown
			golden(t, filepath.Join("testdata", string(k)+".golden"), got)
		})
	}
}

// TestGoldenGeneric pins one generic runbook.
func TestGoldenGeneric(t *testing.T) {
	g := newGen(t, Config{})
	rb, err := g.ForKind(schema.KindDBPoolExhaustion)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, filepath.Join("testdata", "generic-db-pool-exhaustion.golden"), rb.Markdown)
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("missing golden file (run go test -update): %v", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test ./runbookgen -update to accept):\n%s", path, firstDiff(string(want), got))
	}
}

func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + strconv.Itoa(i+1) + ":\n want: " + w + "\n  got: " + g
		}
	}
	return ""
}

// sections are the headings every runbook has, in order.
var sections = []string{"## Symptoms", "## Diagnosis — first 5 minutes", "## Mitigation — now",
	"## Resolution", "## Stop condition", "## Evidence to keep"}

// sectionBodies splits md at the required headings, failing on a missing
// or misplaced one.
func sectionBodies(t *testing.T, md string) map[string]string {
	t.Helper()
	out := map[string]string{}
	rest := md
	for i, h := range sections {
		at := strings.Index(rest, "\n"+h+"\n")
		if at < 0 {
			t.Fatalf("section %q missing or out of order", h)
		}
		rest = rest[at+len(h)+2:]
		end := len(rest)
		if i+1 < len(sections) {
			if n := strings.Index(rest, "\n"+sections[i+1]+"\n"); n >= 0 {
				end = n
			}
		}
		out[h] = strings.TrimSpace(rest[:end])
	}
	return out
}

// TestEveryKindEverySection checks every kind's runbook, generic and for
// an incident, has every section with content, commands in the diagnosis,
// and no template leftovers.
func TestEveryKindEverySection(t *testing.T) {
	g := newGen(t, Config{})
	for _, k := range schema.Kinds {
		t.Run(string(k), func(t *testing.T) {
			generic, err := g.ForKind(k)
			if err != nil {
				t.Fatal(err)
			}
			rep := fixedReport(k)
			inc := g.ForCandidate(rep, &rep.Candidates[0])
			for _, rb := range []*Runbook{generic, inc} {
				checkSections(t, rb)
			}
			for _, want := range []string{"`payment`", "`checkout`", "2026-03-14T09:04:12Z",
				"4bf92f3577b34da6a3ce929d0e0e4736", "`GET /api/cart/checkout`", "180", "15.0%"} {
				if !strings.Contains(inc.Markdown, want) {
					t.Errorf("incident runbook does not name %s", want)
				}
			}
			if strings.Contains(inc.Markdown, "ffffffffffffffffffffffffffffff01") {
				t.Errorf("more than %d example traces shown", MaxExamples)
			}
			if strings.Contains(inc.Markdown, phTrace) || strings.Contains(inc.Markdown, phService) {
				t.Error("incident runbook keeps a placeholder")
			}
			if !strings.Contains(generic.Markdown, phService) {
				t.Error("generic runbook has no SERVICE placeholder")
			}
		})
	}
}

func checkSections(t *testing.T, rb *Runbook) {
	t.Helper()
	body := sectionBodies(t, rb.Markdown)
	for h, b := range body {
		if len(b) < 40 {
			t.Errorf("%s: section %q is nearly empty: %q", rb.ID, h, b)
		}
	}
	if !strings.Contains(body["## Diagnosis — first 5 minutes"], "```") {
		t.Errorf("%s: diagnosis has no command or query", rb.ID)
	}
	for _, bad := range []string{"<no value>", "%!", "{{"} {
		if strings.Contains(rb.Markdown, bad) {
			t.Errorf("%s: leftover %q in the Markdown", rb.ID, bad)
		}
	}
	if strings.Count(rb.Markdown, "```")%2 != 0 {
		t.Errorf("%s: unbalanced code fences", rb.ID)
	}
	if rb.Severity == "" || rb.MTTRTarget == "" || rb.SeverityReason == "" || rb.Source != SourceBuiltIn {
		t.Errorf("%s: incomplete document %+v", rb.ID, rb)
	}
}
