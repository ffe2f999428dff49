package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestDemoPrintsWhatRuns runs what the demo ends with, as printed: each
// command exits 0 from another folder, the web UI's links open the
// incident window, the trace and the runbook; the trace shown is an
// example whose own analysis names the top candidate, after its first
// error; and the runbook id printed keeps its text after another analysis
// of the same store.
func TestDemoPrintsWhatRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("the demo simulation takes a while")
	}
	db := filepath.Join(t.TempDir(), "demo.db")
	code, out, errs := runCmd(t, "demo", "--store", db)
	if code != exitOK {
		t.Fatalf("demo: exit %d: %s", code, errs)
	}
	if first, _, _ := strings.Cut(out, "\n"); !strings.Contains(first, "files in a temporary folder (faultsim -out DIR writes such files to keep)") {
		t.Errorf("the demo does not say where its files went: %q", first)
	}
	_, next, ok := strings.Cut(out, "\nNext, on the demo's store (these run as printed):\n")
	if !ok {
		t.Fatalf("the demo does not end with what to run next:\n%s", out)
	}
	// Every command the demo prints names its store, the incident's
	// "traces:" and "runbook" hints too.
	for _, m := range regexp.MustCompile(`analyze (trace|runbook|incident|serve)\b[^\n]*`).FindAllString(out, -1) {
		if !strings.Contains(m, " --store "+db) {
			t.Errorf("%q does not name the demo's store", m)
		}
	}
	t.Chdir(t.TempDir()) // as printed, from anywhere
	var cmds [][]string
	var links []string
	for _, line := range strings.Split(strings.TrimSpace(next), "\n") {
		line, _, _ = strings.Cut(line, "#")
		f := strings.Fields(line)
		switch {
		case len(f) > 1 && f[0] == "analyze":
			cmds = append(cmds, f[1:])
		case len(f) == 1 && strings.HasPrefix(f[0], "http://localhost:8080/"):
			links = append(links, strings.TrimPrefix(f[0], "http://localhost:8080"))
		default:
			t.Errorf("a line the test cannot run: %q", line)
		}
	}
	if len(cmds) != 4 || len(links) != 3 {
		t.Fatalf("want 4 commands (runbook, trace, incident, serve) and 3 links, got %q and %q", cmds, links)
	}
	outs := map[string]string{}
	for _, args := range cmds[:3] {
		code, out, errs := runCmd(t, args...)
		if code != exitOK || out == "" {
			t.Errorf("analyze %s: exit %d, stderr %q", strings.Join(args, " "), code, errs)
		}
		outs[args[0]] = out
	}
	if !strings.Contains(outs["runbook"], "## Mitigation — now") || !strings.Contains(outs["trace"], "ORIGIN") || !strings.Contains(outs["incident"], "#1 ") {
		t.Errorf("the commands printed did not show a runbook, a trace and an incident:\n%s", outs)
	}
	rbID, traceID := cmds[0][len(cmds[0])-1], cmds[1][len(cmds[1])-1]
	// The trace's text ends with its incident's runbook, as the page's button.
	if want := "\nRunbook   " + rbID + " (P1, MTTR 15m; the incident's): analyze runbook --store " + db + " " + rbID + "\n"; !strings.HasSuffix(outs["trace"], want) {
		t.Errorf("analyze trace does not end with %q", want)
	}

	// The trace shown is one of the top candidate's, and agrees with it.
	var rep struct {
		Candidates []struct {
			Service   string    `json:"service"`
			FirstSeen time.Time `json:"first_seen"`
			Examples  []string  `json:"example_traces"`
			Runbook   struct{ ID string }
		} `json:"candidates"`
	}
	_, js, _ := runCmd(t, append(cmds[2], "--json")...)
	if err := json.Unmarshal([]byte(js), &rep); err != nil || len(rep.Candidates) == 0 {
		t.Fatalf("incident --json: %v", err)
	}
	top := rep.Candidates[0]
	if top.Runbook.ID != rbID || len(top.Examples) == 0 || top.Examples[0] != traceID {
		t.Errorf("printed runbook %s and trace %s; the incident's top candidate has %s and %q", rbID, traceID, top.Runbook.ID, top.Examples)
	}
	for _, id := range top.Examples {
		var tr struct {
			Failed  bool
			Suspect *struct{ Service string }
			Origin  *struct{ Timestamp time.Time }
		}
		_, js, _ := runCmd(t, "trace", "--store", db, "--json", id)
		if err := json.Unmarshal([]byte(js), &tr); err != nil {
			t.Fatal(err)
		}
		if tr.Failed && (tr.Suspect == nil || tr.Suspect.Service != top.Service) {
			t.Errorf("example trace %s names suspect %+v, not the candidate %s", id, tr.Suspect, top.Service)
		}
		if tr.Origin != nil && tr.Origin.Timestamp.Before(top.FirstSeen.Add(-5*time.Second)) {
			t.Errorf("example trace %s failed at %v, before the candidate's first error %v", id, tr.Origin.Timestamp, top.FirstSeen)
		}
	}

	// The web UI's links, on the store as printed.
	serve := cmds[3][1:]
	for i := 0; i+1 < len(serve); i++ {
		if serve[i] == "--listen" {
			serve = append(serve[:i:i], serve[i+2:]...)
		}
	}
	base, stop := startServe(t, serve...)
	defer stop()
	want := []*regexp.Regexp{
		regexp.MustCompile(regexp.QuoteMeta(top.Service)),
		regexp.MustCompile(`id="trace-runbook" href="/runbooks/` + regexp.QuoteMeta(rbID) + `">Runbook of the incident`),
		regexp.MustCompile(`Mitigation`),
	}
	for i, l := range links {
		if code, page := httpGet(t, base+l); code != 200 || !want[i].MatchString(page) {
			t.Errorf("%s: %d, the page lacks %s", l, code, want[i])
		}
	}
	if !strings.HasPrefix(links[0], "/incident?from=") || !strings.Contains(links[1], traceID) || !strings.HasSuffix(links[2], rbID) {
		t.Errorf("links %q do not name the incident window, trace %s and runbook %s", links, traceID, rbID)
	}

	// Another analysis over another window leaves the runbook as it was.
	if code, _, errs := runCmd(t, "incident", "--store", db, "--since", "2h"); code != exitOK {
		t.Fatalf("another analysis: exit %d: %s", code, errs)
	}
	if code, again, _ := runCmd(t, cmds[0]...); code != exitOK || again != outs["runbook"] {
		t.Errorf("runbook %s changed after another analysis of the store", rbID)
	}
}

// TestVersion: analyze --version prints its version on stdout, exit 0.
func TestVersion(t *testing.T) {
	code, out, errs := runCmd(t, "--version")
	if code != exitOK || !strings.HasPrefix(out, "analyze ") || !strings.Contains(out, runtime.Version()) || errs != "" {
		t.Errorf("analyze --version: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestDemoStoreHint: after analyze demo, the README's commands without
// --store read the default store, another file; when it is not there and
// the demo's is, the error says how to read the demo's.
func TestDemoStoreHint(t *testing.T) {
	t.Setenv("FAULTLINE_STORE", "")
	t.Chdir(t.TempDir())
	code, _, errs := runCmd(t, "incident", "--since", "30m")
	if code == exitOK || strings.Contains(errs, "--store faultline-demo.db") {
		t.Fatalf("no demo store: exit %d, %q", code, errs)
	}
	if err := os.WriteFile(demoStore, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"incident", "--since", "30m"}, {"trace", "7529a6adaa3843ba0c5788f6e9e55d23"}} {
		if code, _, errs := runCmd(t, args...); code == exitOK || !strings.Contains(errs, "the demo's store is faultline-demo.db here: add --store faultline-demo.db") {
			t.Errorf("analyze %s beside the demo's store: exit %d, %q", strings.Join(args, " "), code, errs)
		}
	}
}
