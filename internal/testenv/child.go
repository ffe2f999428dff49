package testenv

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// StartChild re-runs this test binary as another process, running only
// test with env ("KEY=value") added, and returns once the child wrote a
// line containing ready (on its standard output or error): the child side
// of test sees env, does its work and stays until its standard input
// closes. stop closes that input (or kills the child, when kill is set)
// and waits for it to end; an unkilled child that fails is a test error.
//
// Some things only another process shows: POSIX locks belong to a
// process, so a store another process holds open looks different from
// one this process holds.
func StartChild(t testing.TB, test, env, ready string) (stop func(kill bool)) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^"+test+"$")
	cmd.Env = append(os.Environ(), env)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	err = cmd.Start()
	pw.Close() // the child holds its own copy
	if err != nil {
		pr.Close()
		t.Fatal(err)
	}
	sc := bufio.NewScanner(pr)
	var seen []string
	for sc.Scan() && !strings.Contains(sc.Text(), ready) {
		seen = append(seen, sc.Text())
	}
	started := sc.Err() == nil && strings.Contains(sc.Text(), ready)
	drained := make(chan struct{})
	go func() { io.Copy(io.Discard, pr); pr.Close(); close(drained) }()
	stop = func(kill bool) {
		if kill {
			cmd.Process.Kill()
		}
		in.Close()
		<-drained // all reads end before Wait
		if err := cmd.Wait(); !kill && err != nil {
			t.Errorf("the child process running %s: %v", test, err)
		}
	}
	if !started {
		stop(true)
		t.Fatalf("the child process running %s did not say %q: %v: %s", test, ready, sc.Err(), strings.Join(seen, "\n"))
	}
	return stop
}
