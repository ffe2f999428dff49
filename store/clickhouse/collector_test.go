package clickhouse_test

import (
	"errors"
	"maps"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/patterns"
	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store/backend"
	"github.com/faultline/faultline/store/clickhouse"
)

// TestCollectorSchemas reads tables created with the Collector exporter's
// own DDL, of both generations, holding rows inserted by plain SQL: first
// read-only (nothing of faultline's exists), then read-write (the
// migrations add faultline's tables next to the Collector's and backfill
// them).
func TestCollectorSchemas(t *testing.T) {
	for _, gen := range []struct{ name, ddl, status string }{
		{"v1", "collector_v1.sql", "STATUS_CODE_ERROR"},
		{"v2", "collector_v2.sql", "Error"},
	} {
		t.Run(gen.name, func(t *testing.T) {
			u := front.NewDatabase(t)
			execFile(t, gen.ddl, u, gen.status)
			execFile(t, "collector_rows.sql", u, gen.status)

			ro := openStore(t, u, clickhouse.Options{ReadOnly: true})
			checkCollectorTrace(t, ro)
			checkCollectorErrors(t, ro)
			if err := ro.WriteBatch(t.Context(), []schema.Record{{Time: time.Now(), Body: "x"}}); !errors.Is(err, backend.ErrReadOnly) {
				t.Errorf("a write to a read-only store: err = %v, want backend.ErrReadOnly", err)
			}

			rw := openStore(t, u, clickhouse.Options{})
			checkCollectorTrace(t, rw)
			checkCollectorErrors(t, rw)
		})
	}
}

func checkCollectorTrace(t *testing.T, s *clickhouse.Store) {
	t.Helper()
	got := collect(t, s.TraceRecords(t.Context(), "5b8efff798038103d269b633813fc60c", 0))
	if len(got) != 6 {
		t.Fatalf("the trace has %d records, want 6: %v", len(got), got)
	}
	checkout := got[0]
	if checkout.Type != schema.TypeSpan || checkout.Status != schema.StatusError || checkout.Service != "checkout" ||
		checkout.Duration != 3*time.Second || checkout.Body != "call to payments exceeded 3000ms" ||
		checkout.Attrs[schema.AttrHTTPStatus] != "504" || checkout.Attrs[schema.AttrServiceVersion] != "1.4.2" {
		t.Errorf("the checkout span reads as %+v", checkout)
	}
	wantTemplate := patterns.Mask(checkout.Body)
	if checkout.Template != wantTemplate || checkout.Signature != patterns.SignatureOf("checkout", wantTemplate) {
		t.Errorf("template %q signature %q, want them computed at read time (%q)", checkout.Template, checkout.Signature, wantTemplate)
	}
	pay := got[1]
	if pay.ParentSpanID != "eee19b7ec3c1b174" || pay.Status != schema.StatusError ||
		!strings.HasPrefix(pay.Body, "HikariPool-1 - Connection is not available") ||
		pay.Attrs[schema.AttrExceptionType] != "java.sql.SQLTransientConnectionException" {
		t.Errorf("the payments span (error only in its exception event) reads as %+v", pay)
	}
	if got[2].Status != schema.StatusUnset || got[2].Duration != 5*time.Microsecond {
		t.Errorf("the unset span reads as %+v", got[2])
	}
	log := got[3]
	want := map[string]string{"service.name": "payments", "host.name": "pay-7f9c", "thread": "http-nio-8080-exec-7"}
	if log.Type != schema.TypeLog || log.Severity != schema.SeverityError || log.SeverityText != "ERROR" ||
		log.SpanID != "eee19b7ec3c1b175" || !maps.Equal(log.Attrs, want) || log.Template == "" {
		t.Errorf("the payments log reads as %+v", log)
	}
}

func checkCollectorErrors(t *testing.T, s *clickhouse.Store) {
	t.Helper()
	q := schema.WindowQuery{
		From: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC), To: time.Date(2026, 11, 30, 10, 1, 0, 0, time.UTC),
		ErrorsOnly: true,
	}
	got := collect(t, s.WindowRecords(t.Context(), q))
	var bodies []string
	for _, r := range got {
		bodies = append(bodies, r.Service+": "+r.Body)
	}
	want := []string{
		"checkout: call to payments exceeded 3000ms",
		"payments: HikariPool-1 - Connection is not available, request timed out after 2000ms",
		"payments: HikariPool-1 - Connection is not available, request timed out after 2000ms",
		"checkout: retrying payment call, attempt 2 of 3",
	}
	if strings.Join(bodies, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors only:\n%s\nwant:\n%s", strings.Join(bodies, "\n"), strings.Join(want, "\n"))
	}
	// The failing traces the server selects, from the errors table or,
	// without it, from the record tables (TestFailingTracesSelectedByTheServer).
	if ids := checkFailing(t, s, q.From, q.To, 0); len(ids) != 1 || ids[0] != "5b8efff798038103d269b633813fc60c" {
		t.Errorf("failing traces %v, want the one trace whose spans failed", ids)
	}
	q.ErrorsOnly, q.Service = false, "checkout"
	if got := collect(t, s.WindowRecords(t.Context(), q)); len(got) != 3 {
		t.Errorf("the checkout window has %d records, want 3", len(got))
	}
}

// execFile runs the statements of testdata/name in the database of the
// store URL u, with DB and STATUS replaced.
func execFile(t *testing.T, name, u, status string) {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	pu, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	db := strings.TrimPrefix(pu.Path, "/")
	text := strings.NewReplacer("DB.", db+".", "'STATUS'", "'"+status+"'").Replace(string(b))
	for _, st := range strings.Split(text, ";\n") {
		var lines []string
		for _, l := range strings.Split(st, "\n") {
			if !strings.HasPrefix(strings.TrimSpace(l), "--") {
				lines = append(lines, l)
			}
		}
		if sql := strings.TrimSpace(strings.Join(lines, "\n")); sql != "" {
			if err := front.Exec(t.Context(), sql); err != nil {
				t.Fatal(err)
			}
		}
	}
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
