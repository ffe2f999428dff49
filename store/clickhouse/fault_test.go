package clickhouse_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/internal/chfront/chtest"
	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store/clickhouse"
)

// fastWriter makes the writer react in milliseconds, for fault tests.
func fastWriter(spool string) clickhouse.Options {
	return clickhouse.Options{Writer: clickhouse.WriterOptions{
		SpoolDir: spool, FlushInterval: 5 * time.Millisecond, CallTimeout: 5 * time.Second,
		Attempts: 2, Backoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond,
		BreakerFailures: 2, BreakerOpenFor: 200 * time.Millisecond,
		ReplayInterval: 50 * time.Millisecond, PoisonTries: 2,
	}}
}

func batch(svc string, b, n int, base time.Time) []schema.Record {
	recs := make([]schema.Record, n)
	for i := range recs {
		recs[i] = schema.Record{
			Time: base.Add(time.Duration(b*n+i) * time.Millisecond), TraceID: "0af7651916cd43dd8448eb211c80319c",
			Service: svc, Severity: schema.SeverityError, Body: fmt.Sprintf("batch %d record %d", b, i),
		}
	}
	return recs
}

// TestFaultEngineDown kills the ClickHouse engine mid-ingest, keeps
// sending, starts it again, and counts every record exactly once, in the
// record table and in the error view fed from it.
func TestFaultEngineDown(t *testing.T) {
	front.Need(t)
	fr := chtest.Start(t, "")
	u := fr.NewDatabase(t)
	s := openStore(t, u, fastWriter(t.TempDir()))
	const batches, size = 24, 100
	base := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	sawOpen := false
	for b := range batches {
		switch b {
		case 6:
			fr.Kill()
		case 18:
			if err := fr.Restart(); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.WriteBatch(t.Context(), batch("fault", b, size, base)); err != nil {
			t.Fatalf("batch %d: %v", b, err)
		}
		sawOpen = sawOpen || s.WriterStatus().Breaker != clickhouse.BreakerClosed
	}
	st := waitDrained(t, s)
	if !sawOpen || st.Spooled == 0 || st.Replayed != st.Spooled {
		t.Errorf("status %+v: want the breaker to have opened and every spooled record replayed", st)
	}
	countExactlyOnce(t, fr, u, "fault", batches*size)
}

func waitDrained(t *testing.T, s *clickhouse.Store) clickhouse.WriterStatus {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		st := s.WriterStatus()
		if st.SpoolBatches == 0 && st.Breaker == clickhouse.BreakerClosed {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("the spool did not drain: %+v", st)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// countExactlyOnce checks that svc has want distinct records and no
// duplicates, in otel_logs and in faultline_errors.
func countExactlyOnce(t *testing.T, fr *chtest.Front, u, svc string, want int) {
	t.Helper()
	db := dbOf(t, u)
	for _, table := range []string{"otel_logs", "faultline_errors"} {
		out, err := fr.Query(t.Context(), fmt.Sprintf("SELECT count(), uniqExact(Body) FROM %s.%s WHERE ServiceName = '%s'", db, table, svc))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(out); got != fmt.Sprintf("%d\t%d", want, want) {
			t.Errorf("%s: count and distinct bodies = %q, want %d of each", table, got, want)
		}
	}
}

func dbOf(t *testing.T, u string) string {
	t.Helper()
	i := strings.LastIndex(u, "/")
	j := strings.Index(u, "?")
	if i < 0 || j < i {
		t.Fatalf("no database in %q", u)
	}
	return u[i+1 : j]
}

// TestPoisonToDeadLetters makes ClickHouse refuse a batch (a CHECK
// constraint), sees it move to the dead-letter directory after
// PoisonTries, lifts the constraint, replays it, and replays it again to
// show the deduplication token keeps the replay idempotent.
func TestPoisonToDeadLetters(t *testing.T) {
	u := front.NewDatabase(t)
	s := openStore(t, u, fastWriter(t.TempDir()))
	db := dbOf(t, u)
	if err := front.Exec(t.Context(), "ALTER TABLE "+db+".otel_logs ADD CONSTRAINT no_poison CHECK Body NOT LIKE '%poison%'"); err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 11, 30, 13, 0, 0, 0, time.UTC)
	good, bad := batch("dlq", 0, 10, base), batch("dlq", 1, 10, base)
	bad[3].Body = "poison pill"
	for _, b := range [][]schema.Record{good, bad} {
		if err := s.WriteBatch(t.Context(), b); err != nil { // accepted: in ClickHouse or in the spool
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for s.WriterStatus().DeadBatches == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	dead, err := s.DLQ().List()
	if err != nil || len(dead) != 1 || dead[0].Records != 10 || dead[0].Tries != 2 || !strings.Contains(dead[0].LastError, "no_poison") {
		t.Fatalf("dead letters = %+v, %v: want one batch of 10 refused twice by no_poison", dead, err)
	}
	waitDrained(t, s)
	if err := front.Exec(t.Context(), "ALTER TABLE "+db+".otel_logs DROP CONSTRAINT no_poison"); err != nil {
		t.Fatal(err)
	}
	_, recs, err := s.DLQ().Show(dead[0].ID)
	if err != nil || len(recs) != 10 || recs[3].Body != "poison pill" {
		t.Fatalf("Show = %d records, %v", len(recs), err)
	}
	copyBack := snapshot(t, s.DLQ().Dir())
	if n, err := s.ReplayDead(t.Context(), s.DLQ(), dead[0].ID); err != nil || n != 10 {
		t.Fatalf("ReplayDead = %d, %v", n, err)
	}
	copyBack() // the same batch once more, as if the first replay's answer was lost
	if _, err := s.ReplayDead(t.Context(), s.DLQ(), dead[0].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ReplayDead(t.Context(), s.DLQ(), dead[0].ID); err == nil {
		t.Error("replaying a batch that is gone succeeded")
	}
	countExactlyOnce(t, front, u, "dlq", 20)
}
