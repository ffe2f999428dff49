package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store/sqlite"
)

// TestMain lets the test binary act as the ingest command when re-executed.
func TestMain(m *testing.M) {
	if os.Getenv("FAULTLINE_INGEST_AS_MAIN") == "1" {
		main()
	}
	os.Exit(m.Run())
}

// runBinary re-executes the test binary as `ingest args...`.
func runBinary(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "FAULTLINE_INGEST_AS_MAIN=1", "FAULTLINE_STORE=", "FAULTLINE_PATTERNS=")
	cmd.Dir = t.TempDir()
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.ExitCode()
	default:
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

const logLine = `{"time":"2024-03-05T10:20:30Z","level":"error","msg":"db timeout","trace_id":"4bf92f3577b34da6a3ce929d0e0e4736","service":"api"}`

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "app.jsonl")
	os.WriteFile(good, []byte(logLine+"\nnot json\n"), 0o644)
	badPatterns := filepath.Join(dir, "p.json")
	os.WriteFile(badPatterns, []byte(`{"patterns":[{"name":"x","regex":"(("}]}`), 0o644)
	db := filepath.Join(dir, "s.db")
	cases := []struct {
		name  string
		args  []string
		stdin string
		want  int
		out   string
	}{
		{"no args", nil, "", exitUsage, ""},
		{"help", []string{"help"}, "", exitOK, ""},
		{"unknown command", []string{"frobnicate"}, "", exitUsage, ""},
		{"unknown flag", []string{"load", "--nope", good}, "", exitUsage, ""},
		{"load without files", []string{"load", "--store", db}, "", exitUsage, ""},
		{"missing file", []string{"load", "--store", db, filepath.Join(dir, "missing.log")}, "", exitUsage, ""},
		{"bad patterns", []string{"load", "--store", db, "--patterns", badPatterns, good}, "", exitUsage, ""},
		{"store unreachable", []string{"load", "--store", filepath.Join(dir, "no", "such", "dir", "s.db"), good}, "", exitFail, ""},
		{"load file", []string{"load", "--store", db, good}, "", exitOK, "jsonl, 1 record accepted, 1 rejected (bad_json: 1)"},
		{"load stdin", []string{"load", "--store", db, "-"}, logLine + "\n", exitOK, "-: jsonl, 1 record accepted"},
		{"bad retention", []string{"serve", "--store", db, "--retention", "soon"}, "", exitUsage, ""},
		{"serve args", []string{"serve", "extra"}, "", exitUsage, ""},
	}
	for _, c := range cases {
		code, stdout, stderr := runBinary(t, c.stdin, c.args...)
		if code != c.want {
			t.Errorf("%s: exit %d, want %d (stderr %q)", c.name, code, c.want, stderr)
		}
		if c.out != "" && !strings.Contains(stdout, c.out) {
			t.Errorf("%s: stdout %q lacks %q", c.name, stdout, c.out)
		}
		if code != exitOK && (strings.Contains(stderr, "goroutine") || strings.Count(strings.TrimSpace(stderr), "\n") > 3 && c.name != "no args" && c.name != "unknown flag") {
			t.Errorf("%s: stderr is not one sentence: %q", c.name, stderr)
		}
	}
	st, err := sqlite.Open(context.Background(), db, sqlite.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	n := 0
	for r, err := range st.TraceRecords(context.Background(), "4bf92f3577b34da6a3ce929d0e0e4736", 0) {
		if err != nil {
			t.Fatal(err)
		}
		if r.Service != "api" || r.Severity != schema.SeverityError {
			t.Errorf("stored %+v", r)
		}
		n++
	}
	if n != 2 {
		t.Errorf("%d records stored, want 2 (file and stdin)", n)
	}
}

func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestServeDrains runs serve in-process, posts a batch, cancels (as SIGTERM
// does) and checks the exit code and that the batch is in the store.
func TestServeDrains(t *testing.T) {
	db := filepath.Join(t.TempDir(), "serve.db")
	addr, otlpAddr := freePort(t), freePort(t)
	ctx, cancel := context.WithCancel(context.Background())
	var stderr bytes.Buffer
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"serve", "--store", db, "--listen", addr, "--otlp-listen", otlpAddr, "--otlp-grpc-listen", "off", "--retention", "3650d"},
			strings.NewReader(""), &bytes.Buffer{}, &stderr)
	}()
	url := "http://" + addr
	var resp *http.Response
	var err error
	for i := 0; i < 100; i++ {
		if resp, err = http.Get(url + "/healthz"); err == nil {
			resp.Body.Close()
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil || resp.StatusCode != 200 {
		cancel()
		t.Fatalf("server not healthy: %v (%s)", err, stderr.String())
	}
	resp, err = http.Post(url+"/ingest/jsonl", "application/json", strings.NewReader(logLine+"\n"))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("post: %v %v", err, resp)
	}
	resp.Body.Close()
	cancel()
	if code := <-done; code != exitOK {
		t.Fatalf("serve exited %d: %s", code, stderr.String())
	}
	st, err := sqlite.Open(context.Background(), db, sqlite.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	n := 0
	for _, err := range st.TraceRecords(context.Background(), "4bf92f3577b34da6a3ce929d0e0e4736", 0) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 1 {
		t.Errorf("%d records after shutdown, want 1", n)
	}
}

func TestParseRetention(t *testing.T) {
	for in, want := range map[string]time.Duration{"7d": 7 * 24 * time.Hour, "36h": 36 * time.Hour, "1d12h": 36 * time.Hour, "": 0} {
		if got, err := parseRetention(in); err != nil || got != want {
			t.Errorf("parseRetention(%q) = %v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"soon", "0d", "-1h", "d", "9999999d", "99999999999999999999d"} {
		if _, err := parseRetention(bad); err == nil {
			t.Errorf("parseRetention(%q) accepted", bad)
		}
	}
}

// TestRetentionTooLong: a retention longer than any that is meant is "too
// long", not "not a duration" (9999999d used to overflow the day count).
func TestRetentionTooLong(t *testing.T) {
	var stderr bytes.Buffer
	code := run(t.Context(), []string{"serve", "--store", filepath.Join(t.TempDir(), "r.db"), "--retention", "9999999d"}, strings.NewReader(""), io.Discard, &stderr)
	if code != exitUsage || !strings.Contains(stderr.String(), "too long") {
		t.Errorf("--retention 9999999d: exit %d, %q; want 2 and too long", code, stderr.String())
	}
}

// TestLoadService checks that `ingest load` names the service of records
// that name none after the file, and that --service overrides the name.
func TestLoadService(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "s.db")
	const t1, t2 = "11111111111111111111111111111111", "22222222222222222222222222222222"
	file := filepath.Join(dir, "payment-service.log")
	os.WriteFile(file, []byte("2024-03-05 10:20:30 ERROR trace_id="+t1+" card declined\n"), 0o644)
	if code, _, stderr := runBinary(t, "", "load", "--store", db, file); code != exitOK {
		t.Fatalf("load: exit %d: %s", code, stderr)
	}
	stdin := `{"msg":"card declined","trace_id":"` + t2 + `"}` + "\n"
	if code, _, stderr := runBinary(t, stdin, "load", "--store", db, "--service", "billing", "-"); code != exitOK {
		t.Fatalf("load --service: exit %d: %s", code, stderr)
	}
	st, err := sqlite.Open(context.Background(), db, sqlite.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for id, want := range map[schema.TraceID]string{t1: "payment-service", t2: "billing"} {
		n := 0
		for r, err := range st.TraceRecords(context.Background(), id, 0) {
			if err != nil {
				t.Fatal(err)
			}
			if n++; r.Service != want || r.Body != "card declined" && id == t2 {
				t.Errorf("trace %s: service %q body %q, want %q", id, r.Service, r.Body, want)
			}
		}
		if n != 1 {
			t.Errorf("trace %s: %d records", id, n)
		}
	}
}

// TestLoadInputs: a binary file is refused (exit 2, one sentence), an
// empty file is said to be empty, and a BOM does not hide JSON lines.
func TestLoadInputs(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "s.db")
	bin := make([]byte, 2048)
	for i := range bin {
		bin[i] = byte(i*7919 + i/3)
	}
	files := map[string][]byte{
		"binary.bin": bin,
		"empty.log":  nil,
		"bom.jsonl":  []byte("\xef\xbb\xbf" + logLine + "\n"),
	}
	for name, data := range files {
		os.WriteFile(filepath.Join(dir, name), data, 0o644)
	}
	code, _, stderr := runBinary(t, "", "load", "--store", db, filepath.Join(dir, "binary.bin"))
	if code != exitUsage || !strings.Contains(stderr, "not a text file") || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
		t.Errorf("binary: exit %d, stderr %q", code, stderr)
	}
	code, stdout, stderr := runBinary(t, "", "load", "--store", db, filepath.Join(dir, "empty.log"), filepath.Join(dir, "bom.jsonl"))
	if code != exitOK || !strings.Contains(stdout, "empty.log: empty file") || !strings.Contains(stdout, "bom.jsonl: jsonl, 1 record accepted") {
		t.Errorf("empty and BOM: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestLoadRefusedLeavesNoStore: a run that refuses all its input leaves no
// new store behind (nor its WAL files), whether the input is a file or
// standard input; a store that existed before, or that took records, stays.
func TestLoadRefusedLeavesNoStore(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "a.out")
	good := filepath.Join(dir, "app.jsonl")
	os.WriteFile(bin, []byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00>\x00"), 0o644)
	os.WriteFile(good, []byte(logLine+"\n"), 0o644)
	exists := func(path string) bool {
		_, err := os.Lstat(path)
		return err == nil
	}
	for name, args := range map[string][]string{
		"file":          {filepath.Join(dir, "new1.db"), bin},
		"stdin":         {"file:" + filepath.Join(dir, "new2.db"), "-"},
		"several files": {filepath.Join(dir, "new3.db"), bin, bin},
	} {
		path, _ := strings.CutPrefix(args[0], "file:")
		code, _, stderr := runBinary(t, "\x00\x01\x02binary", append([]string{"load", "--store"}, args...)...)
		if code != exitUsage || !strings.Contains(stderr, "not a text file") {
			t.Errorf("%s: exit %d, stderr %q; want %d, not a text file", name, code, stderr, exitUsage)
		}
		for _, p := range []string{path, path + "-wal", path + "-shm"} {
			if exists(p) {
				t.Errorf("%s: refused input left %s behind", name, filepath.Base(p))
			}
		}
	}
	mixed := filepath.Join(dir, "mixed.db")
	if code, _, _ := runBinary(t, "", "load", "--store", mixed, good, bin); code != exitUsage || !exists(mixed) {
		t.Errorf("a good and a binary file: exit %d, store kept %v; want %d and the store", code, exists(mixed), exitUsage)
	}
	if code, _, _ := runBinary(t, "", "load", "--store", mixed, bin); code != exitUsage || !exists(mixed) {
		t.Errorf("a binary file into an existing store: exit %d, store kept %v; want %d and the store", code, exists(mixed), exitUsage)
	}
}
