// Package testenv finds what dataset-driven tests need outside the
// repository: the shared/datasets folder that lies beside a checkout.
package testenv

import (
	"os"
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
	t.Skipf("shared/datasets/%s not found beside the repository; this dataset-driven test needs it", name)
	return ""
}
