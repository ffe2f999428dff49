// Package chtest starts the chDB HTTP front (internal/chfront) as a
// separate process for tests, so that code using clickhouse-go over HTTP
// runs against a real ClickHouse engine.
//
// Use one front per test binary:
//
//	var front *chtest.Front
//
//	func TestMain(m *testing.M) { os.Exit(chtest.Main(m, &front)) }
//
//	func TestX(t *testing.T) {
//		url := front.NewDatabase(t) // skips when libchdb is not installed
//		...
//	}
//
// The library comes from $FAULTLINE_CHDB_LIB (else the default location of
// .ci/install-chdb.sh). When it is missing, tests that need the front skip,
// unless $CI is set, in which case Main fails the test binary.
package chtest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Environment variables the helper reads.
const (
	EnvLib = "FAULTLINE_CHDB_LIB"    // path of libchdb.so
	EnvBin = "FAULTLINE_CHFRONT_BIN" // a prebuilt chfront binary (else it is built)
	EnvCI  = "CI"                    // when set, a missing library fails instead of skipping
)

const (
	frontPkg     = "github.com/faultline/faultline/internal/chfront/cmd/chfront"
	startTimeout = 60 * time.Second
	installHint  = "libchdb is not installed: run .ci/install-chdb.sh and set FAULTLINE_CHDB_LIB to the path it prints"
)

// ErrNoFront means the front could not be started.
var ErrNoFront = errors.New("cannot start the chDB front")

// Front is a running chfront process.
type Front struct {
	skip    string // why tests skip; empty when the front runs
	dir     string // temporary directory: binary, data, logs
	bin     string
	lib     string
	addr    string // host:port, kept across restarts
	version string // --report-version
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	done    chan error
	seq     atomic.Int64
}

// Main starts a front, runs the tests and stops it. It returns the exit
// code for os.Exit. *f is always set; see Need.
func Main(m *testing.M, f **Front) int {
	fr, err := start("")
	*f = fr
	if err != nil && os.Getenv(EnvCI) != "" {
		fmt.Fprintf(os.Stderr, "chtest: %v\n", err)
		fr.Close()
		return 1
	}
	code := m.Run()
	fr.Close()
	return code
}

// Start starts a front of its own (for tests that need a second one, for
// example one that impersonates another server version). Close it.
func Start(tb testing.TB, reportVersion string) *Front {
	tb.Helper()
	fr, err := start(reportVersion)
	if err != nil {
		fr.Close()
		fr.Need(tb)
		tb.Fatal(err)
	}
	tb.Cleanup(func() { fr.Close() })
	return fr
}

func start(reportVersion string) (*Front, error) {
	fr := &Front{version: reportVersion}
	fr.lib = libPath()
	if fr.lib == "" {
		fr.skip = installHint
		return fr, errors.New(installHint)
	}
	dir, err := os.MkdirTemp("", "faultline-chfront-")
	if err != nil {
		fr.skip = err.Error()
		return fr, err
	}
	fr.dir = dir
	if err := fr.build(); err != nil {
		fr.skip = err.Error()
		return fr, err
	}
	if err := fr.Restart(); err != nil {
		fr.skip = err.Error()
		return fr, err
	}
	return fr, nil
}

func libPath() string {
	if p := os.Getenv(EnvLib); p != "" {
		if _, err := os.Stat(p); err == nil {
			return p
		}
		return ""
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	m, _ := filepath.Glob(filepath.Join(home, ".cache", "faultline", "chdb", "*", "libchdb.so"))
	if len(m) == 0 {
		return ""
	}
	return m[len(m)-1]
}

func (f *Front) build() error {
	if p := os.Getenv(EnvBin); p != "" {
		f.bin = p
		return nil
	}
	f.bin = filepath.Join(f.dir, "chfront")
	out, err := exec.Command("go", "build", "-o", f.bin, frontPkg).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%w: go build: %v: %s", ErrNoFront, err, out)
	}
	return nil
}

// Need skips tb when the front is not running.
func (f *Front) Need(tb testing.TB) {
	tb.Helper()
	if f == nil {
		tb.Skip("chtest: no front; call chtest.Main from TestMain")
	}
	if f.skip != "" {
		tb.Skip("chtest: " + f.skip)
	}
}

// Addr is the front's host:port.
func (f *Front) Addr() string { return f.addr }

// Running reports whether the front process is up.
func (f *Front) Running() bool { return f.cmd != nil }

var listening = regexp.MustCompile(`listening on http://(\S+)`)

// Restart starts the front process (again), on the same address and data
// directory as before. It waits until the front is ready.
func (f *Front) Restart() error {
	if f.cmd != nil {
		return nil
	}
	listen := f.addr
	if listen == "" {
		listen = "127.0.0.1:0"
	}
	args := []string{"--lib", f.lib, "--data", filepath.Join(f.dir, "data"), "--listen", listen,
		"--exit-on-stdin-eof", "--log-level", "debug"}
	if f.version != "" {
		args = append(args, "--report-version", f.version)
	}
	cmd := exec.Command(f.bin, args...)
	logf, err := os.OpenFile(filepath.Join(f.dir, "front.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd.Stderr = logf
	// The front exits when this pipe closes, that is when the test binary
	// ends, even when it is killed (a timeout panic).
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%w: %v", ErrNoFront, err)
	}
	addr, err := waitReady(stdout)
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		log, _ := os.ReadFile(filepath.Join(f.dir, "front.log"))
		return fmt.Errorf("%w: %v; log: %s", ErrNoFront, err, tail(log, 2000))
	}
	f.addr, f.cmd, f.done, f.stdin = addr, cmd, make(chan error, 1), stdin
	go func() { io.Copy(io.Discard, stdout); f.done <- cmd.Wait() }()
	return nil
}

func waitReady(r io.Reader) (string, error) {
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
				return
			}
		}
		close(found)
	}()
	select {
	case a, ok := <-found:
		if !ok {
			return "", errors.New("the front exited before it was ready")
		}
		return a, nil
	case <-time.After(startTimeout):
		return "", fmt.Errorf("the front was not ready after %v", startTimeout)
	}
}

// Stop ends the front process (SIGTERM, then SIGKILL after 10 s) and keeps
// its data directory, so that Restart brings the same data back.
func (f *Front) Stop() error {
	if f.cmd == nil {
		return nil
	}
	f.stdin.Close()
	f.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-f.done:
	case <-time.After(10 * time.Second):
		f.cmd.Process.Kill()
		<-f.done
	}
	f.cmd = nil
	return nil
}

// Log is the front's log so far (its stderr), for debugging a failure.
func (f *Front) Log() string {
	b, _ := os.ReadFile(filepath.Join(f.dir, "front.log"))
	return string(b)
}

// Kill ends the front process abruptly (SIGKILL), as a crash would, and
// keeps its data directory for Restart.
func (f *Front) Kill() {
	if f.cmd == nil {
		return
	}
	f.cmd.Process.Kill()
	<-f.done
	f.stdin.Close()
	f.cmd = nil
}

// Close stops the front and removes its files.
func (f *Front) Close() {
	if f == nil {
		return
	}
	f.Stop()
	if f.dir != "" {
		os.RemoveAll(f.dir)
	}
}

// URL is the front's HTTP base URL, e.g. http://127.0.0.1:PORT.
func (f *Front) URL() string { return "http://" + f.addr }

// NewDatabase creates a fresh database for tb and returns a store URL for
// it: clickhouse://127.0.0.1:PORT/DB?protocol=http. The database is dropped
// when tb ends. It skips tb when the front is not running.
func (f *Front) NewDatabase(tb testing.TB) string {
	tb.Helper()
	f.Need(tb)
	name := fmt.Sprintf("t%d_%s", f.seq.Add(1), sanitize(tb.Name()))
	if err := f.Exec(context.Background(), "CREATE DATABASE "+name); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if f.cmd != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			f.Exec(ctx, "DROP DATABASE IF EXISTS "+name)
		}
	})
	return "clickhouse://" + f.addr + "/" + name + "?protocol=http"
}

func sanitize(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
		if b.Len() >= 40 {
			break
		}
	}
	return b.String()
}

// Exec runs one statement through plain HTTP (no client library).
func (f *Front) Exec(ctx context.Context, sql string) error {
	_, err := f.Query(ctx, sql)
	return err
}

// Query runs one statement and returns its output (TabSeparated unless the
// SQL names a format).
func (f *Front) Query(ctx context.Context, sql string) (string, error) {
	u := f.URL() + "/?" + url.Values{"default_format": {"TabSeparated"}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(sql))
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("chtest: %q failed: %s", tail([]byte(sql), 200), strings.TrimSpace(string(body)))
	}
	return string(body), nil
}

func tail(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[len(b)-n:])
}
