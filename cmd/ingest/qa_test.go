package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/ingest"
	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store"
	"github.com/faultline/faultline/store/sqlite"
)

// TestLoadOutOfRangeTime: one record of a year no store can hold is
// rejected alone; the other 11,999 records of the file are stored and the
// load exits 0 (it used to exit 1 with 5,000 stored).
func TestLoadOutOfRangeTime(t *testing.T) {
	dir := t.TempDir()
	db, file := filepath.Join(dir, "s.db"), filepath.Join(dir, "app.jsonl")
	var sb strings.Builder
	for i := 1; i <= 12000; i++ {
		year := 2024
		if i == 7001 {
			year = 2263
		}
		fmt.Fprintf(&sb, `{"time":"%d-03-05T10:20:30Z","msg":"line %d","service":"api"}`+"\n", year, i)
	}
	os.WriteFile(file, []byte(sb.String()), 0o644)
	code, stdout, stderr := runBinary(t, "", "load", "--store", db, file)
	if code != exitOK || !strings.Contains(stdout, "11999 records accepted, 1 rejected (bad_timestamp: 1)") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	st, err := sqlite.Open(context.Background(), db, sqlite.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if s, err := st.Stats(context.Background()); err != nil || s.Records != 11999 {
		t.Errorf("store holds %d records (%v), want 11999", s.Records, err)
	}
}

// oneSentence reports whether stderr is one line without a stack trace or
// an SQLite result code.
func oneSentence(stderr string) bool {
	s := strings.TrimSpace(stderr)
	return s != "" && !strings.Contains(s, "\n") && !strings.Contains(s, "goroutine") && !sqliteCode.MatchString(s)
}

var sqliteCode = regexp.MustCompile(`\(\d+\)`)

// TestUsageErrors: bad flags, listen addresses and store URLs are usage
// errors (exit 2) in one sentence, found before anything is opened or
// created; a port in use is a failure (exit 1) that creates no store.
func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "app.jsonl")
	os.WriteFile(file, []byte(logLine+"\n"), 0o644)
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, c := range []struct {
		name string
		args []string
		want int
	}{
		{"serve unknown flag", []string{"serve", "--bogus"}, exitUsage},
		{"load unknown flag", []string{"load", "--bogus", file}, exitUsage},
		{"dlq unknown flag", []string{"dlq", "list", "--bogus"}, exitUsage},
		{"serve flag without value", []string{"serve", "--store"}, exitUsage},
		{"listen port out of range", []string{"serve", "--listen", "127.0.0.1:99999"}, exitUsage},
		{"otlp listen without port", []string{"serve", "--otlp-listen", "localhost"}, exitUsage},
		{"otlp grpc listen without port", []string{"serve", "--otlp-grpc-listen", "localhost"}, exitUsage},
		{"serve ftp store", []string{"serve", "--store", "ftp://host/x.db", "--listen", "127.0.0.1:0", "--otlp-listen", ""}, exitUsage},
		{"load ftp store", []string{"load", "--store", "ftp://host/x.db", file}, exitUsage},
		{"load file URL with a host", []string{"load", "--store", "file://elsewhere/x.db", file}, exitUsage},
		{"port in use", []string{"serve", "--listen", busy.Addr().String(), "--otlp-listen", ""}, exitFail},
		{"tls cert without key", []string{"serve", "--tls-cert", file, "--listen", "127.0.0.1:0", "--otlp-listen", ""}, exitUsage},
		{"tls key without cert", []string{"serve", "--tls-key", file, "--listen", "127.0.0.1:0", "--otlp-listen", ""}, exitUsage},
		{"tls cert not PEM", []string{"serve", "--tls-cert", file, "--tls-key", file, "--listen", "127.0.0.1:0", "--otlp-listen", ""}, exitUsage},
		{"body timeout zero", []string{"serve", "--body-timeout", "0s", "--listen", "127.0.0.1:0", "--otlp-listen", ""}, exitUsage},
	} {
		db := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".db")
		args := c.args
		if !slices.Contains(args, "--store") && args[0] != "dlq" {
			args = append([]string{args[0], "--store", db}, args[1:]...)
		}
		code, _, stderr := runBinary(t, "", args...)
		if code != c.want || !oneSentence(stderr) {
			t.Errorf("%s: exit %d, stderr %q; want %d and one sentence", c.name, code, stderr, c.want)
		}
		if _, err := os.Stat(db); err == nil {
			t.Errorf("%s: the store was created", c.name)
		}
	}
	if code, _, stderr := runBinary(t, "", "serve", "-h"); code != exitOK || !strings.Contains(stderr, "-listen") {
		t.Errorf("serve -h: exit %d, stderr %q", code, stderr)
	}
}

// TestDamagedStore: a store whose file was overwritten in part is refused
// by load and serve (exit 1) in one sentence that says it is damaged and
// how to recover; load used to report every record accepted and exit 0.
func TestDamagedStore(t *testing.T) {
	dir := t.TempDir()
	db, file := filepath.Join(dir, "s.db"), filepath.Join(dir, "app.jsonl")
	var sb strings.Builder
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&sb, `{"time":"2024-03-05T10:20:30Z","msg":"request %d failed with a long enough message","trace_id":"%032x","service":"api"}`+"\n", i, i+1)
	}
	os.WriteFile(file, []byte(sb.String()), 0o644)
	if code, _, stderr := runBinary(t, "", "load", "--store", db, file); code != exitOK {
		t.Fatalf("load: exit %d: %s", code, stderr)
	}
	f, err := os.OpenFile(db, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := f.Stat()
	noise := bytes.Repeat([]byte{0xa5, 0x5a, 0x13, 0x37}, 50<<10) // 200 KiB
	f.WriteAt(noise, fi.Size()/2)
	f.Close()
	for name, args := range map[string][]string{
		"load":  {"load", "--store", db, file},
		"serve": {"serve", "--store", db, "--listen", "127.0.0.1:0", "--otlp-listen", "", "--otlp-grpc-listen", ""},
	} {
		code, stdout, stderr := runBinary(t, "", args...)
		if code != exitFail || !oneSentence(stderr) || !strings.Contains(stderr, "damaged") || !strings.Contains(stderr, "backup") {
			t.Errorf("%s on a damaged store: exit %d, stdout %q, stderr %q; want 1 and how to recover", name, code, stdout, stderr)
		}
	}
}

// failingStore is a store whose writes fail with err, and says so.
type failingStore struct {
	store.Store
	err error
}

func (f failingStore) WriteBatch(context.Context, []schema.Record) error { return f.err }
func (f failingStore) WriteHealth() error                                { return f.err }

// TestStoreFailureClasses: the embedded store's lasting failures reach
// ingest as its sentinels (a damaged file 500, a full disk 503), told in
// the store's own sentence (it was "the disk holding the store is full:
// the disk holding the store is full"), and /healthz's check fails while
// the last write failed so.
func TestStoreFailureClasses(t *testing.T) {
	db, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "s.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := healthOf(db)(t.Context()); err != nil {
		t.Fatalf("a new store is unhealthy: %v", err)
	}
	for in, want := range map[error]error{
		fmt.Errorf("cannot write: %w", store.ErrCorrupt):  ingest.ErrStoreBroken,
		fmt.Errorf("cannot write: %w", store.ErrDiskFull): ingest.ErrStoreNoSpace,
	} {
		st := failingStore{db, in}
		if err := sinkOf(st).WriteBatch(t.Context(), nil); !errors.Is(err, want) || !errors.Is(err, in) || err.Error() != in.Error() {
			t.Errorf("write error %v became %v, want it to wrap %v and say only the store's sentence", in, err, want)
		}
		if err := healthOf(st)(t.Context()); !errors.Is(err, want) {
			t.Errorf("health after %v: %v", in, err)
		}
	}
}
