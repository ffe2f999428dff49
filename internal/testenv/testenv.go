// Package testenv finds what tests need outside the repository: the
// shared/datasets folder that lies beside a checkout, and the real clients
// scripts/test.sh installs.
package testenv

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Datasets returns shared/datasets/name, found by walking up from the
// test's package directory. When it is absent the test fails if $CI is set
// (CI always lays shared/ beside the clone) and is skipped otherwise.
func Datasets(t testing.TB, name string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		p := filepath.Join(dir, "shared", "datasets", name)
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p
		}
		up := filepath.Dir(dir)
		if up == dir {
			break
		}
		dir = up
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("shared/datasets/%s not found beside the repository", name)
	}
	t.Skipf("shared/datasets/%s not found beside the repository (walked up from %s); this test reads real data: lay the "+
		"shared/datasets folder beside the checkout (its README says where each set comes from: nezha-tt and nezha-ob from "+
		"IntelligentDDS/Nezha, loghub-2k from logpai/loghub, converted to faultline's input formats)", name, dir)
	return ""
}

// Binary returns the path of a real client a test drives (telemetrygen,
// syslog-ng): $env when set, else name on $PATH. When it is absent the test
// fails if $CI is set (scripts/test.sh installs it) and is skipped
// otherwise, with install saying how to get it.
func Binary(t testing.TB, env, name, install string) string {
	t.Helper()
	p := os.Getenv(env)
	if p == "" {
		p, _ = exec.LookPath(name)
	}
	if p != "" {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	msg := fmt.Sprintf("no %s (set %s, or %s)", name, env, install)
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// Damage overwrites n bytes in the middle of the file at path with
// deterministic noise, as a disk or a stray write would: what the tests of
// a damaged store start from. It fails the test when the file is smaller
// than 3n, too small to damage without hitting its header.
func Damage(t testing.TB, path string, n int) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() < 3*int64(n) {
		t.Fatalf("%s of %d bytes is too small to damage", path, fi.Size())
	}
	noise := make([]byte, n)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range noise {
		noise[i] = byte(rng.Uint32())
	}
	if _, err := f.WriteAt(noise, fi.Size()/2); err != nil {
		t.Fatal(err)
	}
}
