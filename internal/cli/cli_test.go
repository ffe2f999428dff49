package cli

import (
	"bytes"
	"context"
	"runtime"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	var got []string
	p := &Program{Name: "prog", Notes: []string{"a note"}, Commands: []Command{{
		Name: "echo", Args: "WORD...", Help: "print the words",
		Run: func(_ context.Context, e *Env, args []string) int {
			got = args
			e.Stdout.Write([]byte(strings.Join(args, " ")))
			return 7
		},
	}}}
	cases := []struct {
		args          []string
		code          int
		stdout, inErr string
	}{
		{nil, ExitUsage, "", "usage: prog COMMAND"},
		{[]string{"help"}, ExitOK, "", "print the words"},
		{[]string{"--help"}, ExitOK, "", "a note"},
		{[]string{"nope"}, ExitUsage, "", `unknown command "nope"`},
		{[]string{"echo", "a", "b"}, 7, "a b", ""},
		{[]string{"--version"}, ExitOK, "prog " + Version() + "\n", ""},
		{[]string{"version"}, ExitOK, "prog " + Version() + "\n", ""},
	}
	for _, c := range cases {
		var out, errs bytes.Buffer
		code := p.Run(context.Background(), c.args, nil, &out, &errs)
		if code != c.code || out.String() != c.stdout || !strings.Contains(errs.String(), c.inErr) {
			t.Errorf("Run(%q) = %d, %q, %q", c.args, code, out.String(), errs.String())
		}
	}
	if strings.Join(got, ",") != "a,b" {
		t.Errorf("echo got %q", got)
	}
}

// TestVersion: the version names Go's and the module's (a test binary's
// is "(devel)").
func TestVersion(t *testing.T) {
	if v := Version(); !strings.HasSuffix(v, runtime.Version()) || !strings.Contains(v, "(devel)") && !strings.HasPrefix(v, "v") {
		t.Errorf("Version() = %q", v)
	}
}

func TestTruncate(t *testing.T) {
	if got := Truncate("héllo", 2); got != "h…" {
		t.Errorf("Truncate cut a rune: %q", got)
	}
	if got := Truncate("abc", 5); got != "abc" {
		t.Errorf("Truncate = %q", got)
	}
}
