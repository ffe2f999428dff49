package main

import (
	"context"
	"fmt"
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

// TestAcceptedRecordsSurviveKill9 posts batches to a real `ingest serve`
// process, kills it with SIGKILL right after the last 2xx, and finds every
// accepted record in the store: a 2xx means the records are on disk.
func TestAcceptedRecordsSurviveKill9(t *testing.T) {
	db := filepath.Join(t.TempDir(), "serve.db")
	addr := freePort(t)
	cmd := exec.Command(os.Args[0], "serve", "--store", db, "--listen", addr, "--otlp-listen", freePort(t),
		"--otlp-grpc-listen", "off", "--retention", "3650d")
	cmd.Env = append(os.Environ(), "FAULTLINE_INGEST_AS_MAIN=1", "FAULTLINE_STORE=", "FAULTLINE_PATTERNS=")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	url := "http://" + addr
	if err := waitHealthz(url); err != nil {
		t.Fatalf("ingest serve did not come up: %v", err)
	}
	const batches, lines = 12, 400
	base := time.Now().Add(-time.Minute).UTC()
	accepted := 0
	for b := range batches {
		var body strings.Builder
		for i := range lines {
			n := b*lines + i
			fmt.Fprintf(&body, `{"time":%q,"level":"error","msg":"order %d failed: db timeout","trace_id":"%032x","service":"api"}`+"\n",
				base.Add(time.Duration(n)*time.Millisecond).Format(time.RFC3339Nano), n, n+1)
		}
		resp, err := http.Post(url+"/ingest/jsonl", "application/x-ndjson", strings.NewReader(body.String()))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			t.Fatalf("batch %d: %s", b, resp.Status)
		}
		accepted += lines
	}
	if err := cmd.Process.Kill(); err != nil { // kill -9, right after the last answer
		t.Fatal(err)
	}
	_ = cmd.Wait()

	st, err := sqlite.Open(context.Background(), db, sqlite.Options{}) // read-write: recovers the WAL
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	q := schema.WindowQuery{From: base.Add(-time.Second), To: base.Add(time.Hour), Limit: 100000}
	seen := map[schema.TraceID]bool{}
	for r, err := range st.WindowRecords(context.Background(), q) {
		if err != nil {
			t.Fatal(err)
		}
		seen[r.TraceID] = true
	}
	if len(seen) != accepted {
		t.Fatalf("%d of %d accepted records in the store after kill -9", len(seen), accepted)
	}
}
