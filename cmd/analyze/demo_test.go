package main

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/internal/testenv"
	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store"
)

// envServeStore makes TestDemoRefusesStoreInUse, re-executed as a child,
// run `analyze serve` on the store at that path until its standard input
// closes: the other process that has the store open.
const envServeStore = "FAULTLINE_ANALYZE_TEST_SERVE"

// TestDemoRefusesStoreInUse: demo does not replace a demo store that a
// running analyze serve (another process) has open, and does once it stopped.
func TestDemoRefusesStoreInUse(t *testing.T) {
	if path := os.Getenv(envServeStore); path != "" {
		serveUntilStdinCloses(path)
		return
	}
	path := filepath.Join(t.TempDir(), "demo.db")
	st, err := store.Open(t.Context(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{st.PutDoc(t.Context(), demoDocKind, demoDocID, []byte(`{"demo":true}`)),
		st.PutDoc(t.Context(), "test", "marker", []byte(`{}`)), st.Close()} {
		if err != nil {
			t.Fatal(err)
		}
	}
	stop := testenv.StartChild(t, "TestDemoRefusesStoreInUse", envServeStore+"="+path, "listening on")
	code, stdout, stderr := runCmd(t, "demo", "--store", path)
	if code != exitUsage || stdout != "" || !strings.Contains(stderr, "is open in another process (analyze serve?); stop it or pick another --store") {
		t.Errorf("demo while serve has the store open: exit %d, stdout %.200q, stderr %q; want %d and the reason", code, stdout, stderr, exitUsage)
	}
	if !hasDoc(t, path, "test", "marker") {
		t.Error("the store in use was replaced")
	}
	stop(false)
	if code, _, stderr := runCmd(t, "demo", "--store", path); code != exitOK || hasDoc(t, path, "test", "marker") {
		t.Errorf("demo after serve stopped: exit %d, stderr %q; want the demo store replaced", code, stderr)
	}
}

// serveUntilStdinCloses is the child's side.
func serveUntilStdinCloses(path string) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() { io.Copy(io.Discard, os.Stdin); cancel() }()
	if code := run(ctx, []string{"serve", "--store", path, "--listen", "127.0.0.1:0"}, strings.NewReader(""), io.Discard, os.Stderr); code != exitOK {
		os.Exit(code)
	}
}

func hasDoc(t *testing.T, path, kind, id string) bool {
	t.Helper()
	st, err := store.Open(t.Context(), path, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_, err = st.GetDoc(t.Context(), kind, id)
	if err != nil && !errors.Is(err, schema.ErrNotFound) {
		t.Fatal(err)
	}
	return err == nil
}
