package analysis_test

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/analysis"
	"github.com/faultline/faultline/evaluate"
	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/sim"
	"github.com/faultline/faultline/store"
)

// TestDamagedBlockSkipped: a block of the store file damaged on disk
// (bytes of its compressed data overwritten in the file, as a failing disk
// would; SQLite's own pages stay valid) no longer fails every analysis of
// its window: the incident and a trace whose records were in it are
// answered from the rest, with a warning saying how many records in how
// many blocks were skipped and why.
func TestDamagedBlockSkipped(t *testing.T) {
	ctx := context.Background()
	inc, err := sim.Generate(sim.DemoConfig(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := inc.WriteCase(filepath.Join(dir, "case")); err != nil {
		t.Fatal(err)
	}
	c, err := evaluate.LoadCase(filepath.Join(dir, "case"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "s.db")
	st, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := evaluate.LoadFiles(ctx, st, c.Files, nil); err != nil {
		t.Fatal(err)
	}
	st.Close()
	from, to := c.Truth.Window.From, c.Truth.Window.To

	// An alert block inside the window, and its bytes in the file.
	raw, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	var data []byte
	err = raw.QueryRow(`SELECT b.n, d.data FROM blocks b JOIN block_data d ON d.id = b.id
		WHERE b.alert = 1 AND b.min_ts >= ? AND b.max_ts < ? ORDER BY b.n DESC LIMIT 1`, from.UnixNano(), to.UnixNano()).Scan(&n, &data)
	raw.Close()
	if err != nil {
		t.Fatalf("no alert block in the window: %v", err)
	}
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(file, data[20:84])
	if at < 0 || bytes.Count(file, data[20:84]) != 1 {
		t.Fatal("the block's bytes are not found once in the file")
	}
	copy(file[at+8:at+56], bytes.Repeat([]byte{0xa5}, 48))
	if err := os.WriteFile(path, file, 0o644); err != nil {
		t.Fatal(err)
	}

	st, err = store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// A trace whose records were in the damaged block: a plain read fails.
	var lost schema.TraceID
	for r, err := range st.WindowRecords(skipping(ctx), schema.WindowQuery{From: from, To: to, ErrorsOnly: true}) {
		if err != nil {
			t.Fatal(err)
		}
		if r.TraceID == "" {
			continue
		}
		for _, err := range st.TraceRecords(ctx, r.TraceID, 0) {
			if err != nil {
				lost = r.TraceID
			}
		}
		if lost != "" {
			break
		}
	}
	if lost == "" {
		t.Fatal("no trace reads the damaged block")
	}

	eng, err := analysis.New(st, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := eng.Incident(ctx, rootcause.Query{From: from, To: to, Top: 5})
	if err != nil {
		t.Fatalf("the incident over a window with one damaged block failed: %v", err)
	}
	want := "records in 1 damaged block of the store"
	if len(rep.Candidates) == 0 || !hasWarning(rep.Warnings, want) || !hasWarning(rep.Warnings, "bytes changed after they were written") {
		t.Errorf("incident: %d candidates, warnings %q; want candidates and a warning %q with the reason", len(rep.Candidates), rep.Warnings, want)
	}
	t.Logf("incident warnings: %q", rep.Warnings)
	res, err := eng.Trace(ctx, lost)
	if err != nil {
		t.Fatalf("trace %s, partly in the damaged block: %v", lost, err)
	}
	if !hasWarning(res.Warnings, "read for this trace") {
		t.Errorf("trace warnings %q, want one saying records were skipped", res.Warnings)
	}
}

func hasWarning(ws []string, s string) bool {
	for _, w := range ws {
		if strings.Contains(w, s) {
			return true
		}
	}
	return false
}

func skipping(ctx context.Context) context.Context {
	ctx, _ = store.WithSkipped(ctx)
	return ctx
}
