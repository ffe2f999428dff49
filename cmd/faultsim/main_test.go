package main

import (
	"errors"
	"os"
	"os/exec"
	"testing"
)

// TestExitCodes re-executes the test binary as faultsim to check the
// process exit codes.
func TestExitCodes(t *testing.T) {
	if os.Getenv("FAULTSIM_AS_MAIN") == "1" {
		os.Args = append([]string{"faultsim"}, os.Args[len(os.Args)-1:]...)
		if os.Args[1] == "none" {
			os.Args = os.Args[:1]
		}
		main()
		return
	}
	for arg, want := range map[string]int{"none": exitUsage, "-help": exitOK, "-bogus": exitUsage, "-cases=x": exitUsage} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestExitCodes$", "--", arg)
		cmd.Env = append(os.Environ(), "FAULTSIM_AS_MAIN=1")
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != want {
			t.Errorf("faultsim %s: exit %d, want %d", arg, code, want)
		}
	}
}
