package sqlite

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/faultline/faultline/schema"
)

// TestQueryPlans checks that each query of the block layout is answered
// from the index meant for it, without a scan of a table or a sort.
func TestQueryPlans(t *testing.T) {
	db, err := Open(t.Context(), filepath.Join(t.TempDir(), "p.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	window := func(errorsOnly bool, service string) (string, []any) {
		sqlText, bySvc := windowBlocksSQL(schema.WindowQuery{ErrorsOnly: errorsOnly, Service: service})
		args := []any{int64(1), int64(0)}
		if bySvc {
			args = append(args, servicesKey(service))
		}
		return sqlText, args
	}
	for _, c := range []struct {
		name, sql, index string
		args             []any
	}{
		{"trace", traceBlocksSQL, "sqlite_autoindex_block_traces_1", []any{int64(1)}},
		{"window", q(window(false, "")), "blocks_min_ts", a(window(false, ""))},
		{"errors", q(window(true, "")), "blocks_min_ts", a(window(true, ""))},
		{"service", q(window(false, "s")), "blocks_min_ts", a(window(false, "s"))},
		{"service errors", q(window(true, "s")), "blocks_min_ts", a(window(true, "s"))},
		{"first", boundsFirstSQL, "blocks_first_ts", nil},
		{"last", boundsLastSQL, "blocks_max_ts", nil},
		{"retention", blocksBeforeSQL, "blocks_min_ts", []any{int64(0), 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			plan := queryPlan(t, db, c.sql, c.args)
			if !strings.Contains(plan, "USING INDEX "+c.index) && !strings.Contains(plan, "USING COVERING INDEX "+c.index) &&
				!strings.Contains(plan, "USING PRIMARY KEY") {
				t.Errorf("plan %q does not use %s", plan, c.index)
			}
			if strings.Contains(plan, "TEMP B-TREE") || regexp.MustCompile(`SCAN (blocks|block_data|block_traces)( AS \w+)?\n`).MatchString(plan) {
				t.Errorf("plan %q sorts or scans a table", plan)
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
