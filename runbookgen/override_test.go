package runbookgen

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/schema"
)

// writeTmpl writes a team template under dir.
func writeTmpl(t *testing.T, dir, rel, text string) string {
	t.Helper()
	path := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestOverridePerKindAndPerService(t *testing.T) {
	dir := t.TempDir()
	kindPath := writeTmpl(t, dir, "timeout.md.tmpl", "# Team runbook for {{.Service}}\n\nPage the on-call of {{.Service}}; trace {{index .Examples 0}}.\n")
	svcPath := writeTmpl(t, dir, "payment/timeout.md.tmpl", "# Payment team: {{.Service}} times out\n\n{{template \"diagnosis\" .}}\n")
	writeTmpl(t, dir, "README.md", "not a template")
	g := newGen(t, Config{TemplatesDir: dir})
	if p := g.Problems(); len(p) != 0 {
		t.Fatalf("unexpected problems: %v", p)
	}

	rep := fixedReport(schema.KindTimeout)
	rb := g.ForCandidate(rep, &rep.Candidates[0])
	if rb.Source != svcPath || !strings.HasPrefix(rb.Markdown, "# Payment team: `payment` times out") {
		t.Errorf("service + kind template not used: source %q\n%s", rb.Source, rb.Markdown)
	}
	if !strings.Contains(rb.Markdown, "analyze trace 4bf92f3577b34da6a3ce929d0e0e4736") {
		t.Error("service template cannot call the built-in diagnosis")
	}

	rep.Candidates[0].Service = "ledger"
	rb = g.ForCandidate(rep, &rep.Candidates[0])
	if rb.Source != kindPath || !strings.Contains(rb.Markdown, "Page the on-call of `ledger`") {
		t.Errorf("kind template not used for another service: source %q\n%s", rb.Source, rb.Markdown)
	}

	generic, _ := g.ForKind(schema.KindTimeout)
	if generic.Source != kindPath {
		t.Errorf("generic runbook ignores the kind template: %q", generic.Source)
	}
	other, _ := g.ForKind(schema.KindOOM)
	if other.Source != SourceBuiltIn {
		t.Errorf("a kind without a team template: source %q", other.Source)
	}
}

func TestOverrideSectionOnly(t *testing.T) {
	dir := t.TempDir()
	writeTmpl(t, dir, "db-pool-exhaustion.md.tmpl",
		"{{define \"mitigation\"}}Call the DBA on-call, then run {{code .Cmd.RolloutUndo}}.{{end}}\n")
	g := newGen(t, Config{TemplatesDir: dir})
	rep := fixedReport(schema.KindDBPoolExhaustion)
	rb := g.ForCandidate(rep, &rep.Candidates[0])
	body := sectionBodies(t, rb.Markdown)
	if got := body["## Mitigation — now"]; got != "Call the DBA on-call, then run `kubectl rollout undo deploy/payment`." {
		t.Errorf("redefined section not used (source %q, problems %v): %q", rb.Source, g.Problems(), got)
	}
	if !strings.Contains(body["## Diagnosis — first 5 minutes"], "pg_stat_activity") {
		t.Error("the other built-in sections were lost")
	}
}

func TestBrokenTemplateParse(t *testing.T) {
	dir := t.TempDir()
	path := writeTmpl(t, dir, "rate-limit.md.tmpl", "# ok\n\nline two\n{{.Service | nosuchfunc}}\n")
	writeTmpl(t, dir, "no-such-kind.md.tmpl", "x")
	g := newGen(t, Config{TemplatesDir: dir})
	probs := g.Problems()
	if len(probs) != 2 {
		t.Fatalf("want 2 problems, got %v", probs)
	}
	if !strings.Contains(probs[0].Error()+probs[1].Error(), path+":4:") || !errors.Is(errors.Join(probs...), ErrTemplate) {
		t.Errorf("parse error does not name file and line: %v", probs)
	}
	if !errors.Is(errors.Join(probs...), ErrUnknownKind) {
		t.Errorf("unknown kind not reported: %v", probs)
	}
	rep := fixedReport(schema.KindRateLimit)
	rb := g.ForCandidate(rep, &rep.Candidates[0])
	if rb.Source != SourceBuiltIn || len(rb.Notes) != 1 || !strings.Contains(rb.Notes[0], path+":4:") {
		t.Fatalf("no fallback with a note: source %q notes %q", rb.Source, rb.Notes)
	}
	if !strings.Contains(rb.Markdown, "> **Note:**") || !strings.Contains(rb.Markdown, "## Mitigation — now") {
		t.Errorf("fallback runbook lacks the note or the built-in text:\n%s", rb.Markdown)
	}
}

func TestBrokenTemplateExec(t *testing.T) {
	dir := t.TempDir()
	path := writeTmpl(t, dir, "payment/oom.md.tmpl", "# x\n{{.Service}} {{.NoSuchField}}\n")
	big := writeTmpl(t, dir, "oom.md.tmpl", `{{printf "%0300000d" 1}}`)
	g := newGen(t, Config{TemplatesDir: dir})
	if len(g.Problems()) != 0 {
		t.Fatalf("execution problems reported at load: %v", g.Problems())
	}
	rep := fixedReport(schema.KindOOM)
	rb := g.ForCandidate(rep, &rep.Candidates[0])
	if rb.Source != SourceBuiltIn || len(rb.Notes) != 2 {
		t.Fatalf("want built-in with two notes, got %q %q", rb.Source, rb.Notes)
	}
	if !strings.Contains(rb.Notes[0], path+":2:") || !strings.Contains(rb.Notes[0], "NoSuchField") {
		t.Errorf("execution error lacks file:line or what is wrong: %q", rb.Notes[0])
	}
	if !strings.Contains(rb.Notes[1], big) || !strings.Contains(rb.Notes[1], "longer than the limit") {
		t.Errorf("oversized output not reported: %q", rb.Notes[1])
	}
	checkSections(t, &Runbook{ID: rb.ID, Markdown: rb.Markdown, Severity: "P1", MTTRTarget: "15m", SeverityReason: "x", Source: rb.Source})
}

func TestNewConfigErrors(t *testing.T) {
	if _, err := New(Config{TemplatesDir: filepath.Join(t.TempDir(), "missing")}, nil); err == nil {
		t.Error("a missing templates dir is accepted")
	}
	for _, u := range []string{"javascript:alert(1)", "ftp://x", "https://x/a b", "https://x/?q=1", "/relative"} {
		if _, err := New(Config{PublicURL: u}, nil); !errors.Is(err, ErrBadConfig) {
			t.Errorf("public URL %q: err %v", u, err)
		}
	}
}
