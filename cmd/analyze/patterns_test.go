package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// patternsInput has three events: a timeout with varying numbers, a breaker
// line, and user names (free words) that vary; plus a blank line.
const patternsInput = `2024-05-01 12:00:00,001 ERROR call to inventory exceeded 3000ms (attempt 1)
2024-05-01 12:00:00,002 ERROR call to inventory exceeded 2500ms (attempt 2)
2024-05-01 12:00:01,003 WARN circuit breaker is OPEN for inventory

2024-05-01 12:00:02,004 ERROR call to inventory exceeded 3100ms (attempt 3)
2024-05-01 12:00:03,005 INFO login failed for user alice
2024-05-01 12:00:03,006 INFO login failed for user bob
2024-05-01 12:00:03,007 INFO login failed for user carol
2024-05-01 12:00:03,008 INFO login failed for user dave
2024-05-01 12:00:03,009 INFO login failed for user erin
`

func runPatternsCmd(t *testing.T, stdin []byte, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), append([]string{"patterns"}, args...), bytes.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func writePatternsFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPatternsJSON(t *testing.T) {
	file := writePatternsFile(t, "app.log", []byte(patternsInput))
	code, stdout, stderr := runPatternsCmd(t, nil, "--json", file)
	if code != exitOK || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var doc patternsDoc
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, stdout)
	}
	lines := strings.Split(strings.TrimSuffix(patternsInput, "\n"), "\n")
	if len(doc.Lines) != len(lines) {
		t.Fatalf("%d line ids for %d lines", len(doc.Lines), len(lines))
	}
	byID := map[string]int{}
	for _, tp := range doc.Templates {
		byID[tp.ID] = tp.Count
	}
	if len(doc.Templates) != 3 {
		t.Errorf("want 3 templates, got %+v", doc.Templates)
	}
	if doc.Lines[3] != "" {
		t.Errorf("blank line got id %q", doc.Lines[3])
	}
	same := [][]int{{0, 1, 4}, {5, 6, 7, 8, 9}}
	for _, group := range same {
		for _, i := range group {
			if doc.Lines[i] != doc.Lines[group[0]] || byID[doc.Lines[i]] != len(group) {
				t.Errorf("line %d: id %q (count %d), want the id of line %d with count %d",
					i+1, doc.Lines[i], byID[doc.Lines[i]], group[0]+1, len(group))
			}
		}
	}
	if doc.Lines[2] == doc.Lines[0] || byID[doc.Lines[2]] != 1 {
		t.Errorf("the breaker line joined another group: %q", doc.Lines[2])
	}
	if !strings.Contains(stdout, `"template":"login failed for user <*>"`) {
		t.Errorf("user template missing or HTML-escaped:\n%s", stdout)
	}
}

func TestPatternsTextFromGzipStdin(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(patternsInput))
	zw.Close()
	code, stdout, stderr := runPatternsCmd(t, gz.Bytes(), "-")
	if code != exitOK || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	rows := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(rows) != 3 {
		t.Fatalf("want 3 rows, got:\n%s", stdout)
	}
	first := strings.Fields(rows[0])
	if first[0] != "5" || strings.Join(first[2:], " ") != "login failed for user <*>" {
		t.Errorf("first row %q, want the 5-line user template first", rows[0])
	}
	if !strings.HasPrefix(strings.TrimSpace(rows[2]), "1 ") {
		t.Errorf("last row %q, want the single breaker line last", rows[2])
	}
}

func TestPatternsSeveralFiles(t *testing.T) {
	a := writePatternsFile(t, "a.log", []byte("disk full on /var/lib/db\n"))
	b := writePatternsFile(t, "b.log", []byte("disk full on /srv/data\n"))
	code, stdout, _ := runPatternsCmd(t, nil, "--json", a, b)
	var doc patternsDoc
	if code != exitOK || json.Unmarshal([]byte(stdout), &doc) != nil {
		t.Fatalf("exit %d, stdout %q", code, stdout)
	}
	if len(doc.Lines) != 2 || doc.Lines[0] != doc.Lines[1] || len(doc.Templates) != 1 {
		t.Errorf("two files of one event: %+v", doc)
	}
}

// TestPatternsRefusesBinary: a file that is not text (as ingest load
// judges it) is refused with exit 2 and nothing on stdout, whether it is a
// file, gzip-compressed or standard input; a few Latin-1 bytes still pass.
func TestPatternsRefusesBinary(t *testing.T) {
	bin := make([]byte, 4096)
	for i := range bin {
		bin[i] = byte(i*7919%251 + 1) // no NUL, mostly not UTF-8
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(bin)
	zw.Close()
	text := writePatternsFile(t, "app.log", []byte(patternsInput))
	tests := []struct {
		name  string
		stdin []byte
		args  []string
	}{
		{"binary file", nil, []string{writePatternsFile(t, "a.out", bin)}},
		{"NUL bytes", nil, []string{writePatternsFile(t, "nul.log", []byte("disk full\x00\x01\x02\n"))}},
		{"binary gzip", nil, []string{writePatternsFile(t, "a.gz", gz.Bytes())}},
		{"binary stdin", bin, []string{"-"}},
		{"after a text file", nil, []string{"--json", text, writePatternsFile(t, "b.out", bin)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runPatternsCmd(t, tt.stdin, tt.args...)
			if code != exitUsage || stdout != "" {
				t.Errorf("exit %d, stdout %.200q; want %d and nothing", code, stdout, exitUsage)
			}
			if strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "not a text file") {
				t.Errorf("stderr %q: want one line saying it is not a text file", stderr)
			}
		})
	}
	latin1 := writePatternsFile(t, "latin1.log", []byte("2024-03-05 10:20:30 ERROR caf\xe9 cr\xe8me br\xfbl\xe9e\n"))
	if code, _, stderr := runPatternsCmd(t, nil, latin1); code != exitOK {
		t.Errorf("a log with a few Latin-1 bytes: exit %d, stderr %q", code, stderr)
	}
}

func TestPatternsBadUsage(t *testing.T) {
	bad := writePatternsFile(t, "bad.gz", []byte{0x1f, 0x8b, 8, 0, 0, 0})
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no files", nil, "no input"},
		{"unknown flag", []string{"--bogus", "x"}, "not defined"},
		{"missing file", []string{filepath.Join(t.TempDir(), "nope.log")}, "no such file"},
		{"directory", []string{t.TempDir()}, "is a directory"},
		{"damaged gzip", []string{bad}, "damaged"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runPatternsCmd(t, nil, tt.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			if strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tt.want) {
				t.Errorf("stderr %q: want one line mentioning %q", stderr, tt.want)
			}
		})
	}
}
