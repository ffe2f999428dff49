package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// dlqRun runs "ingest dlq ARGS" in-process with the given environment.
func dlqRun(t *testing.T, envv map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return envv[k] }}
	code := runDLQ(context.Background(), e, args)
	return code, out.String(), errb.String()
}

func TestDLQCommand(t *testing.T) {
	dir := t.TempDir()
	withDir := map[string]string{"FAULTLINE_SPOOL_DIR": dir}
	for _, tc := range []struct {
		name string
		envv map[string]string
		args []string
		code int
		out  string // substring of stdout (or stderr when the code is not 0)
	}{
		{"no verb", withDir, nil, exitUsage, "usage: ingest dlq"},
		{"unknown verb", withDir, []string{"peek"}, exitUsage, "unknown dlq command"},
		{"no spool dir", nil, []string{"list"}, exitUsage, "no spool directory"},
		{"empty list", withDir, []string{"list"}, exitOK, "no dead-letter batches"},
		{"spool dir from the store URL", map[string]string{"FAULTLINE_STORE": "clickhouse://h:9000/db?spool_dir=" + dir}, []string{"list"}, exitOK, "no dead-letter batches"},
		{"malformed id", withDir, []string{"show", "../../etc/passwd"}, exitUsage, "not a batch id"},
		{"unknown id", withDir, []string{"drop", strings.Repeat("ab", 16)}, exitUsage, "no such dead-letter batch"},
		{"show without id", withDir, []string{"show"}, exitUsage, "name a batch ID"},
		{"flags after the id", nil, []string{"drop", strings.Repeat("cd", 16), "--spool-dir", dir}, exitUsage, "no such dead-letter batch"},
		{"replay into the embedded store", withDir, []string{"replay", "--store", "/tmp/x.db", "--all"}, exitUsage, "needs a ClickHouse store"},
		{"replay unreachable", withDir, []string{"replay", "--store", "clickhouse://127.0.0.1:1/db?protocol=http&dial_timeout=200ms", "--all"}, exitFail, "check that ClickHouse is reachable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := dlqRun(t, tc.envv, tc.args...)
			text := out
			if code != exitOK {
				text = errs
			}
			if code != tc.code || !strings.Contains(text, tc.out) {
				t.Errorf("code %d, stdout %q, stderr %q; want code %d and %q", code, out, errs, tc.code, tc.out)
			}
		})
	}
	code, out, _ := dlqRun(t, withDir, "list", "--json")
	var doc struct {
		Dir     string            `json:"dir"`
		Batches []json.RawMessage `json:"batches"`
	}
	if code != exitOK || json.Unmarshal([]byte(out), &doc) != nil || doc.Batches == nil || !strings.HasSuffix(doc.Dir, "dlq") {
		t.Errorf("list --json: code %d, %q: want one JSON document with an empty batch list", code, out)
	}
}
