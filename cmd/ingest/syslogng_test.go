package main

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/internal/testenv"
	"github.com/faultline/faultline/schema"
)

// syslogNGConf is the syslog-ng snippet of ingest/README.md, with the log
// file and the server's address as placeholders (TestSyslogNGSnippet checks
// that the README shows exactly this). syslog-ng 3.38 takes the template as
// body() and refuses body-template().
const syslogNGConf = `@version: 3.38
options { stats-freq(0); };
source s_app {
  file("LOGFILE" flags(no-parse) follow-freq(0.2) program-override("checkout"));
};
destination d_faultline {
  http(
    url("http://SERVER/ingest/jsonl")
    method("POST")
    headers("Content-Type: application/x-ndjson")
    frac-digits(6)
    batch-lines(100) batch-timeout(200) delimiter("\n")
    response-action(400 => drop)
    body("$(format-json time=$ISODATE service=$PROGRAM level=$LEVEL msg=$MESSAGE)")
  );
};
log { source(s_app); destination(d_faultline); };
`

// syslogNG finds syslog-ng: $FAULTLINE_SYSLOGNG, else syslog-ng on $PATH
// (scripts/test.sh installs Debian's syslog-ng-core and syslog-ng-mod-http).
// Absent, the test fails when $CI is set and is skipped otherwise.
func syslogNG(t *testing.T) string {
	return testenv.Binary(t, "FAULTLINE_SYSLOGNG", "syslog-ng", "apt-get install syslog-ng-core syslog-ng-mod-http")
}

// TestSyslogNG runs the README's syslog-ng configuration against `ingest
// serve`: syslog-ng follows a log file and posts its lines as JSON lines to
// /ingest/jsonl; every line arrives with its trace id, syslog-ng's time to
// the microsecond, and the level the line states over syslog-ng's "notice".
func TestSyslogNG(t *testing.T) {
	bin := syslogNG(t)
	s := startServe(t)
	dir := t.TempDir()
	logFile := filepath.Join(dir, "checkout.log")
	const n = 20
	var lines strings.Builder
	for i := range n {
		switch i % 3 {
		case 0:
			fmt.Fprintf(&lines, "ERROR charge failed n=%d trace_id=%032x\n", i, i+1)
		case 1:
			fmt.Fprintf(&lines, "level=warn slow upstream n=%d trace_id=%032x\n", i, i+1)
		default:
			fmt.Fprintf(&lines, "cart updated n=%d trace_id=%032x\n", i, i+1)
		}
	}
	if err := os.WriteFile(logFile, []byte(lines.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "syslog-ng.conf")
	text := strings.NewReplacer("LOGFILE", logFile, "SERVER", s.http).Replace(syslogNGConf)
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	before := time.Now()
	cmd := exec.CommandContext(t.Context(), bin, "-F", "-f", conf,
		"--persist-file", filepath.Join(dir, "syslog-ng.persist"),
		"--pidfile", filepath.Join(dir, "syslog-ng.pid"),
		"--control", filepath.Join(dir, "syslog-ng.ctl"))
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	got := 0
	for deadline := time.Now().Add(30 * time.Second); got < n && time.Now().Before(deadline); {
		select {
		case err := <-exited:
			s.stop()
			t.Fatalf("syslog-ng exited: %v\n%s", err, out.String())
		case <-time.After(100 * time.Millisecond):
		}
		got = acceptedJSONL(t, s.http)
	}
	cmd.Process.Signal(os.Interrupt)
	<-exited
	s.stop()
	if got < n {
		t.Fatalf("%d of %d lines accepted; syslog-ng said:\n%s", got, n, out.String())
	}
	recs := s.records(t)
	if len(recs) != n {
		t.Fatalf("stored %d records, want %d", len(recs), n)
	}
	subSecond := false
	for _, r := range recs {
		var i int
		_, num, _ := strings.Cut(r.Body, " n=")
		if _, err := fmt.Sscanf(num, "%d", &i); err != nil {
			t.Errorf("record without its line number: %+v", r)
			continue
		}
		if want := schema.TraceID(fmt.Sprintf("%032x", i+1)); r.TraceID != want {
			t.Errorf("line %d: trace id %q, want %q", i, r.TraceID, want)
		}
		if r.Service != "checkout" {
			t.Errorf("line %d: service %q, want checkout", i, r.Service)
		}
		if r.Time.Before(before.Add(-time.Second)) || r.Time.After(time.Now()) {
			t.Errorf("line %d: time %v, not when syslog-ng read it (after %v)", i, r.Time, before)
		}
		if r.Time.Nanosecond()%1000 != 0 {
			t.Errorf("line %d: time %v finer than frac-digits(6)", i, r.Time)
		}
		subSecond = subSecond || r.Time.Nanosecond() != 0
		want := map[int]schema.Severity{0: schema.SeverityError, 1: schema.SeverityWarn}[i%3]
		if i%3 == 2 && (r.Severity == 0 || r.Severity >= schema.SeverityWarn) {
			t.Errorf("line %d: severity %d (%q), want syslog-ng's notice", i, r.Severity, r.SeverityText)
		} else if i%3 != 2 && r.Severity != want {
			t.Errorf("line %d: severity %d (%q), want %d, the level the line states", i, r.Severity, r.SeverityText, want)
		}
	}
	if !subSecond {
		t.Errorf("no record has a sub-second time: frac-digits(6) not applied")
	}
}

// acceptedJSONL reads faultline_ingest_records_accepted_total{format="jsonl"}
// from the server's /metrics.
func acceptedJSONL(t *testing.T, addr string) int {
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		var v float64
		if _, err := fmt.Sscanf(sc.Text(), `faultline_ingest_records_accepted_total{format="jsonl"} %g`, &v); err == nil {
			return int(v)
		}
	}
	return 0
}

// TestSyslogNGSnippet pins the README's syslog-ng configuration to the one
// TestSyslogNG runs.
func TestSyslogNGSnippet(t *testing.T) {
	readme, err := os.ReadFile("../../ingest/README.md")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.NewReplacer("LOGFILE", "/var/log/checkout.log", "SERVER", "faultline:3100").Replace(syslogNGConf)
	if !strings.Contains(string(readme), "```\n"+want+"```") {
		t.Errorf("ingest/README.md does not show the tested syslog-ng configuration:\n%s", want)
	}
}
