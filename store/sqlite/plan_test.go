package sqlite

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestQueryPlans checks that each query is answered from the index meant
// for it, without a scan of the table or a sort.
func TestQueryPlans(t *testing.T) {
	db, err := Open(t.Context(), filepath.Join(t.TempDir(), "p.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	trace := selectCols + ` WHERE trace = ? ORDER BY rowid LIMIT ?`
	for _, c := range []struct {
		name, sql, index string
		args             []any
	}{
		{"trace", trace, "records_trace", []any{[]byte("0123456789abcdef"), 10}},
		{"window", q(windowSQL(0, 1, "", false, 10)), "records_ts", a(windowSQL(0, 1, "", false, 10))},
		{"errors", q(windowSQL(0, 1, "", true, 10)), "records_alert_ts", a(windowSQL(0, 1, "", true, 10))},
		{"service", q(windowSQL(0, 1, "s", false, 10)), "records_service_ts", a(windowSQL(0, 1, "s", false, 10))},
		{"service errors", q(windowSQL(0, 1, "s", true, 10)), "records_service_ts", a(windowSQL(0, 1, "s", true, 10))},
		{"bounds", `SELECT ts FROM records WHERE ts > ? ORDER BY ts LIMIT 1`, "records_ts", []any{int64(zeroTime)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			plan := queryPlan(t, db, c.sql, c.args)
			if !strings.Contains(plan, "USING INDEX "+c.index) && !strings.Contains(plan, "USING COVERING INDEX "+c.index) {
				t.Errorf("plan %q does not use %s", plan, c.index)
			}
			if strings.Contains(plan, "TEMP B-TREE") || strings.Contains(plan, "SCAN records\n") {
				t.Errorf("plan %q sorts or scans the table", plan)
			}
		})
	}
}

func q(sql string, _ []any) string { return sql }
func a(_ string, args []any) []any { return args }

func queryPlan(t *testing.T, db *DB, sql string, args []any) string {
	t.Helper()
	rows, err := db.r.QueryContext(t.Context(), "EXPLAIN QUERY PLAN "+sql, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			t.Fatal(err)
		}
		b.WriteString(detail + "\n")
	}
	return b.String()
}
