package sqlite

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
)

var blockBase = time.Date(2024, 3, 5, 10, 0, 0, 0, time.UTC)

// legacyRecords are records of every shape a file of schema version 1
// holds: equal times (ties in insertion order), a zero Time, a
// non-canonical trace id, spans, errors and attributes.
func legacyRecords(n int) []schema.Record {
	recs := make([]schema.Record, n)
	for i := range recs {
		r := schema.Record{Time: blockBase.Add(time.Duration(n-i/3) * time.Millisecond), Service: fmt.Sprintf("svc-%d", i%3),
			TraceID: schema.TraceID(fmt.Sprintf("%032x", i/8+1)), SpanID: schema.SpanID(fmt.Sprintf("%016x", i+1)),
			Body: fmt.Sprintf("record %d of the old layout", i), Attrs: map[string]string{"i": fmt.Sprint(i)}}
		switch {
		case i%10 == 0:
			r.Severity = schema.SeverityError
		case i%17 == 0:
			r.Type, r.Status, r.Duration = schema.TypeSpan, schema.StatusError, time.Duration(i)
		case i == 5:
			r.Time = time.Time{}
		case i == 6:
			r.TraceID = "Not-Canonical"
		}
		recs[i] = r
	}
	return recs
}

// writeLegacyFile makes a store file of schema version 1 as the code of
// that version wrote it: its schema (migrations()[0]), a row per record.
func writeLegacyFile(t *testing.T, path string, recs []schema.Record) {
	t.Helper()
	w, err := sql.Open("sqlite", dsn(path, Options{}.withDefaults(), false, accessShared))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ctx := t.Context()
	for _, q := range []string{"PRAGMA page_size = 4096", "PRAGMA journal_mode=WAL", migrations()[0], "PRAGMA user_version = 1"} {
		if _, err := w.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	err = inTx(ctx, w, func(tx *sql.Tx) error {
		for i := range recs {
			r := &recs[i]
			ts, err := timeToNanos(r.Time)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO records (ts, trace, service, alert, rec) VALUES (?, ?, ?, ?, ?)`,
				ts, traceKey(r.TraceID), r.Service, alertFlag(r), encodeRecord(nil, r, ts)); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, `UPDATE counters SET value = ? WHERE name = 'records'`, len(recs))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// view is what a store answers: some traces of recs, and the windows.
type view struct {
	traces            map[schema.TraceID][]schema.Record
	all, errs, svc    []schema.Record
	newest, newestSvc []schema.Record // WindowQuery.Newest, cut at 1000 and 500
	first, last       time.Time
	records, deleted  int64
	windowFrom, until time.Time
}

func readView(t *testing.T, db *DB, recs []schema.Record) view {
	t.Helper()
	ctx := t.Context()
	v := view{traces: map[schema.TraceID][]schema.Record{}}
	for i, r := range recs {
		if _, ok := v.traces[r.TraceID]; !ok && r.TraceID != "" && (i%97 == 0 || r.TraceID == "Not-Canonical") {
			v.traces[r.TraceID] = collect(t, db.TraceRecords(ctx, r.TraceID, 0))
		}
	}
	far := time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)
	v.all = collect(t, db.WindowRecords(ctx, schema.WindowQuery{To: far}))
	v.errs = collect(t, db.WindowRecords(ctx, schema.WindowQuery{To: far, ErrorsOnly: true}))
	v.svc = collect(t, db.WindowRecords(ctx, schema.WindowQuery{From: blockBase, To: far, Service: "svc-1"}))
	v.newest = collect(t, db.WindowRecords(ctx, schema.WindowQuery{To: far, Newest: true, Limit: 1000}))
	v.newestSvc = collect(t, db.WindowRecords(ctx, schema.WindowQuery{From: blockBase, To: far, Service: "svc-1", Newest: true, Limit: 500}))
	var err error
	if v.first, v.last, err = db.Bounds(ctx); err != nil {
		t.Fatal(err)
	}
	st, err := db.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	v.records = st.Records
	return v
}

func collect(t *testing.T, seq func(func(schema.Record, error) bool)) []schema.Record {
	t.Helper()
	var out []schema.Record
	for r, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// TestMigrateFromRows: a file of schema version 1 (a row per record) is
// read as it is by a reader, and moved into blocks by a writer's open;
// both answer every query as the old layout did (the reader's answers are
// the old code's), and the writer's open leaves no records table behind
// and gives the freed pages back; a reader open meanwhile follows.
func TestMigrateFromRows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v1.db")
	recs := legacyRecords(30_000) // more than one moveChunk
	writeLegacyFile(t, path, recs)
	before := fileSize(path) + fileSize(path+"-wal")

	ro, err := Open(t.Context(), path, Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("read-only open of a version 1 file: %v", err)
	}
	old := readView(t, ro, recs)
	defer ro.Close() // kept open across the migration: it must follow it
	if len(old.all) != len(recs) || old.records != int64(len(recs)) {
		t.Fatalf("the old layout reads %d records (counter %d), want %d", len(old.all), old.records, len(recs))
	}
	if !reflect.DeepEqual(old.newest, old.all[len(old.all)-1000:]) || !reflect.DeepEqual(old.newestSvc, old.svc[len(old.svc)-500:]) {
		t.Errorf("the old layout's newest 1000 (500 of svc-1) are not the window's last ones")
	}

	rw, err := Open(t.Context(), path, Options{})
	if err != nil {
		t.Fatalf("read-write open of a version 1 file: %v", err)
	}
	defer rw.Close()
	var v int
	var tables int
	rw.w.QueryRowContext(t.Context(), "PRAGMA user_version").Scan(&v)
	rw.w.QueryRowContext(t.Context(), "SELECT count(*) FROM sqlite_schema WHERE name LIKE 'records%'").Scan(&tables)
	if v != SchemaVersion() || tables != 0 {
		t.Errorf("after the migration: user_version %d, %d records tables and indexes; want %d and none", v, tables, SchemaVersion())
	}
	got := readView(t, rw, recs)
	if !reflect.DeepEqual(got, old) {
		for id, tr := range old.traces {
			if !reflect.DeepEqual(got.traces[id], tr) {
				t.Errorf("trace %s: %d records, want %d in the old order", id, len(got.traces[id]), len(tr))
				break
			}
		}
		t.Errorf("the migrated file reads %d/%d/%d records (all/errors/service), %v..%v, counter %d; the old layout %d/%d/%d, %v..%v, counter %d",
			len(got.all), len(got.errs), len(got.svc), got.first, got.last, got.records,
			len(old.all), len(old.errs), len(old.svc), old.first, old.last, old.records)
		for i := range min(len(got.all), len(old.all)) {
			if !reflect.DeepEqual(got.all[i], old.all[i]) {
				t.Errorf("window record %d: %+v, want %+v", i, got.all[i], old.all[i])
				break
			}
		}
	}
	if after := readView(t, ro, recs); !reflect.DeepEqual(after, old) {
		t.Errorf("a reader opened before the migration reads %d records after it, want %d", len(after.all), len(old.all))
	}
	if err := rw.Close(); err != nil {
		t.Fatal(err)
	}
	if after := fileSize(path) + fileSize(path+"-wal"); after > before/2 {
		t.Errorf("the file takes %d bytes after the migration, %d before: the freed pages were not given back", after, before)
	}
}

// TestBlockOrder: records of several batches of several blocks each, with
// times out of order, equal times across batches and alert and other
// records interleaved, come back from a window in time order, ties in
// insertion order, and a trace in insertion order.
func TestBlockOrder(t *testing.T) {
	db, err := Open(t.Context(), filepath.Join(t.TempDir(), "o.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const per = 3*blockRecords + 7 // several blocks per batch
	var want []schema.Record
	batches := make([][]schema.Record, 3)
	for b := range batches {
		for i := range per {
			r := schema.Record{Time: blockBase.Add(time.Duration((per-i)/5) * time.Millisecond), Service: "s",
				TraceID: "4bf92f3577b34da6a3ce929d0e0e4736", Body: fmt.Sprintf("batch %d record %d", b, i)}
			if i%4 == 0 {
				r.Severity = schema.SeverityWarn
			}
			batches[b] = append(batches[b], r)
		}
	}
	trace := []schema.Record{}
	for _, b := range batches {
		trace = append(trace, b...)
	}
	// The expected window: by time, then batch, then position.
	for tick := 0; tick <= per/5; tick++ {
		for _, b := range batches {
			for i, r := range b {
				if (per-i)/5 == tick {
					want = append(want, r)
				}
			}
		}
	}
	for _, b := range batches {
		if err := db.WriteBatch(t.Context(), b); err != nil {
			t.Fatal(err)
		}
	}
	got := collect(t, db.WindowRecords(t.Context(), schema.WindowQuery{To: blockBase.Add(time.Hour)}))
	if len(got) != len(want) {
		t.Fatalf("window: %d records, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i].Body != want[i].Body {
			t.Fatalf("window record %d is %q, want %q", i, got[i].Body, want[i].Body)
		}
	}
	tr := collect(t, db.TraceRecords(t.Context(), "4bf92f3577b34da6a3ce929d0e0e4736", 0))
	if len(tr) != len(trace) {
		t.Fatalf("trace: %d records, want %d", len(tr), len(trace))
	}
	for i := range tr {
		if tr[i].Body != trace[i].Body {
			t.Fatalf("trace record %d is %q, want %q (insertion order)", i, tr[i].Body, trace[i].Body)
		}
	}
}

// TestRetentionTrimsBlocks: DeleteBefore through the middle of blocks
// rewrites them with the records they keep: the count, the window, the
// trace lookups and the trace index all agree afterwards.
func TestRetentionTrimsBlocks(t *testing.T) {
	db, err := Open(t.Context(), filepath.Join(t.TempDir(), "r.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := t.Context()
	recs := make([]schema.Record, 5000)
	for i := range recs {
		recs[i] = schema.Record{Time: blockBase.Add(time.Duration(i) * time.Second), Service: fmt.Sprintf("s%d", i%3),
			TraceID: schema.TraceID(fmt.Sprintf("%032x", i/10+1)), Body: fmt.Sprintf("r %d", i)}
	}
	if err := db.WriteBatch(ctx, recs); err != nil {
		t.Fatal(err)
	}
	cut := blockBase.Add(2505 * time.Second) // inside a block, inside a trace
	n, err := db.DeleteBefore(ctx, cut)
	if err != nil || n != 2505 {
		t.Fatalf("DeleteBefore = %d, %v; want 2505", n, err)
	}
	left := collect(t, db.WindowRecords(ctx, schema.WindowQuery{To: blockBase.Add(time.Hour * 24)}))
	if len(left) != 2495 || !left[0].Time.Equal(cut) {
		t.Fatalf("after retention the window holds %d records from %v, want 2495 from %v", len(left), left[0].Time, cut)
	}
	for _, c := range []struct {
		trace schema.TraceID
		want  int
	}{{recs[0].TraceID, 0}, {recs[2500].TraceID, 5}, {recs[2510].TraceID, 10}, {recs[4999].TraceID, 10}} {
		if got := len(collect(t, db.TraceRecords(ctx, c.trace, 0))); got != c.want {
			t.Errorf("trace %s has %d records, want %d", c.trace, got, c.want)
		}
	}
	var keys int
	db.w.QueryRowContext(ctx, "SELECT count(DISTINCT trace) FROM block_traces").Scan(&keys)
	if keys != 250 {
		t.Errorf("block_traces holds %d keys, want 250 (the traces left)", keys)
	}
	st, _ := db.Stats(ctx)
	if st.Records != 2495 {
		t.Errorf("the counter says %d records, want 2495", st.Records)
	}
	rows, err := db.w.QueryContext(ctx, "SELECT services FROM blocks")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var services string
		if err := rows.Scan(&services); err != nil || services != "\x00s0\x00s1\x00s2\x00" {
			t.Errorf("a block's services are %q (%v), want s0, s1 and s2", services, err)
		}
	}
}

// TestFileBoundedUnderRetention: under steady ingest with retention (a
// DeleteBefore of what is older than a few rounds), the file stops
// growing: freed pages are reused and the WAL is truncated.
func TestFileBoundedUnderRetention(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.db")
	db, err := Open(t.Context(), path, Options{Durability: DurabilityProcess})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := t.Context()
	size := func() int64 { // of the database, the WAL folded back into it
		if _, err := db.w.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	const rounds, keep, per = 40, 5, 4000
	var settled int64
	for round := range rounds {
		recs := make([]schema.Record, per)
		for i := range recs {
			k := round*per + i
			recs[i] = schema.Record{Time: blockBase.Add(time.Duration(k) * time.Millisecond), Service: "s",
				TraceID: schema.TraceID(fmt.Sprintf("%032x", k/8+1)), Body: fmt.Sprintf("request %d took %d ms for user %d", k, k%977, k*7919%100000)}
		}
		if err := db.WriteBatch(ctx, recs); err != nil {
			t.Fatal(err)
		}
		if round >= keep {
			if _, err := db.DeleteBefore(ctx, blockBase.Add(time.Duration((round-keep)*per)*time.Millisecond)); err != nil {
				t.Fatal(err)
			}
		}
		if round == 2*keep {
			settled = size()
		}
	}
	if end := size(); end > settled*3/2 {
		t.Errorf("the file grew from %d bytes (round %d) to %d after %d rounds of steady ingest with retention", settled, 2*keep, end, rounds)
	}
}
