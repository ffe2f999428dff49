package clickhouse

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/")

// TestRenderGolden pins the DDL faultline runs, on one server and on a
// cluster (ON CLUSTER, Replicated engines, *_local tables, Distributed).
func TestRenderGolden(t *testing.T) {
	cols := map[string]map[string]string{"otel_logs": {"ScopeName": "String"}}
	for _, tc := range []struct{ golden, cluster string }{
		{"testdata/ddl.golden", ""},
		{"testdata/ddl_cluster.golden", "prod"},
	} {
		got := renderAll(t, newDDLParams("faultline", tc.cluster, cols))
		if *update {
			if err := os.WriteFile(tc.golden, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(tc.golden)
		if err != nil {
			t.Fatalf("%v (run go test -update to create it)", err)
		}
		if got != string(want) {
			t.Errorf("%s differs from the rendered DDL; run go test -update and review the diff", tc.golden)
		}
	}
}

func renderAll(t *testing.T, p *ddlParams) string {
	t.Helper()
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("-- schema_migrations\n" + migrationsTableDDL(p) + ";\n")
	for i, m := range ms {
		if m.version != i+1 {
			t.Errorf("migration %q has version %d, want %d (no gaps)", m.name, m.version, i+1)
		}
		stmts, err := p.render(m)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range stmts {
			if strings.Contains(s, "{{") || strings.Contains(s, "<no value>") {
				t.Errorf("migration %d: unrendered template in %q", m.version, s)
			}
		}
		b.WriteString("\n-- " + m.name + "\n" + strings.Join(stmts, ";\n\n") + ";\n")
	}
	return b.String()
}

func TestClusterDDL(t *testing.T) {
	got := renderAll(t, newDDLParams("faultline", "prod", nil))
	for _, want := range []string{
		"ON CLUSTER `prod`",
		"ReplicatedMergeTree('/clickhouse/tables/{shard}/{database}/{table}', '{replica}')",
		"ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/{table}', '{replica}', Version)",
		"ENGINE = Distributed('prod', 'faultline', 'otel_logs_local', cityHash64(TraceId))",
		"FROM `faultline`.`otel_logs_local`",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the cluster DDL lacks %q", want)
		}
	}
	if strings.Contains(got, "non_replicated_deduplication_window") {
		t.Error("the cluster DDL sets the non-replicated deduplication window")
	}
}

func TestSplitStatements(t *testing.T) {
	got := splitStatements("-- a comment\nCREATE TABLE a (x String);\n\n;\nSELECT ';';\nINSERT INTO b VALUES (1)\n")
	want := []string{"CREATE TABLE a (x String)", "SELECT ';'", "INSERT INTO b VALUES (1)"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("splitStatements = %q, want %q", got, want)
	}
}
