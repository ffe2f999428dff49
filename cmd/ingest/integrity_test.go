package main

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/ingest"
	"github.com/faultline/faultline/internal/testenv"
	"github.com/faultline/faultline/store/sqlite"
)

func jsonlLines(n, from int) []byte {
	var b bytes.Buffer
	for i := from; i < from+n; i++ {
		fmt.Fprintf(&b, `{"ts":%d,"level":"error","msg":"request %d failed with a long enough message","service":"svc","trace_id":"%032x"}`+"\n", 1709634030+i, i, i+1)
	}
	return b.Bytes()
}

// TestDamagedWhileServing: 200 KiB of noise written into the middle of the
// store file while `ingest serve` runs is found by the periodic integrity
// check (watchIntegrity): then /healthz fails and writes are 500. Before,
// /healthz said ok and 5 × 20,000 more records were taken with 200.
func TestDamagedWhileServing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.db")
	db, err := sqlite.Open(t.Context(), path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := ingest.NewServer(ingest.ServerConfig{Health: healthOf(db)}, sinkOf(db), nil)
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	postLines := func(b []byte) (int, string) {
		resp, err := http.Post(ts.URL+"/ingest/jsonl", "application/json", bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(out)
	}
	for i := 0; i < 4; i++ { // records are compressed: enough for a file of 3 times the damage
		if code, out := postLines(jsonlLines(10000, i*10000)); code != http.StatusOK {
			t.Fatalf("write to an intact store: %d %s", code, out)
		}
	}
	db.Close() // checkpoints the WAL into the file, which is then damaged while a server runs on it
	if db, err = sqlite.Open(t.Context(), path, sqlite.Options{}); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	srv = ingest.NewServer(ingest.ServerConfig{Health: healthOf(db)}, sinkOf(db), nil)
	ts.Config.Handler = srv.Handler()
	go watchIntegrity(t.Context(), db, 50*time.Millisecond, slog.New(slog.DiscardHandler))

	testenv.Damage(t, path, 200<<10)

	deadline := time.Now().Add(5 * time.Second)
	for db.WriteHealth() == nil && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	resp, err := http.Get(ts.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.HasPrefix(string(body), "store damaged") {
		t.Errorf("/healthz of a damaged store: %d %q, want 503 store damaged", resp.StatusCode, body)
	}
	if code, out := postLines(jsonlLines(20000, 50000)); code != http.StatusInternalServerError || !strings.Contains(out, "damaged") {
		t.Errorf("write to a damaged store: %d %s, want 500", code, out)
	}
}
