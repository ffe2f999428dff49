package main

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/internal/testenv"
	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/sim"
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

// TestDemoSystem: demo --system runs the incident of a seed system, loads
// it and analyses it (the output names the service the simulator broke:
// the analysis ranks it, or the demo's verdict names it); a system it does
// not know is bad usage, said in a sentence that lists the systems.
func TestDemoSystem(t *testing.T) {
	if testing.Short() {
		t.Skip("the demo simulation takes a while")
	}
	cfg, ok := sim.SystemDemoConfig("triage", time.Now().UTC())
	if !ok || cfg.Topology != "triage" {
		t.Fatalf("SystemDemoConfig(triage) = %+v, %v", cfg, ok)
	}
	inc, err := sim.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "demo.db")
	code, out, errs := runCmd(t, "demo", "--system", "triage", "--store", db)
	if code != exitOK || !strings.Contains(out, inc.Truth.RootCause.Service) {
		t.Fatalf("demo --system triage: exit %d, stderr %q; want the classifier %s named in:\n%s", code, errs, inc.Truth.RootCause.Service, out)
	}
	code, out, errs = runCmd(t, "demo", "--system", "mesh", "--store", db)
	if code != exitUsage || out != "" || !strings.Contains(errs, `--system "mesh" is not one of routing, jobqueue, triage, payment`) {
		t.Errorf("demo --system mesh: exit %d, stdout %.200q, stderr %q", code, out, errs)
	}
}
