package evaluate

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestLoadCaseKindFromFaultType: a truth.json that names no kind gets the
// one its fault type names (Nezha's), so that kind accuracy is scored on
// the real sets; one that names a kind keeps it.
func TestLoadCaseKindFromFaultType(t *testing.T) {
	for _, c := range []struct{ kind, faultType, want string }{
		{"", "cpu_contention", "cpu-starvation"},
		{"", "cpu_consumed", "cpu-starvation"},
		{"", "network_delay", "network-delay"},
		{"", "return", ""},
		{"", "exception", ""},
		{"", "", ""},
		{"oom", "network_delay", "oom"},
	} {
		dir := t.TempDir()
		truth := fmt.Sprintf(`{"window": {"from": "2022-08-23T12:01:25Z", "to": "2022-08-23T12:04:25Z"},
			"root_cause": {"service": "cartservice", "kind": %q, "fault_type": %q}}`, c.kind, c.faultType)
		if err := os.WriteFile(filepath.Join(dir, "truth.json"), []byte(truth), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := LoadCase(dir)
		if err != nil {
			t.Fatal(err)
		}
		if got.Truth.RootCause.Kind != c.want {
			t.Errorf("kind %q, fault type %q: kind %q, want %q", c.kind, c.faultType, got.Truth.RootCause.Kind, c.want)
		}
	}
}

func TestSpread(t *testing.T) {
	ids := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}
	for _, tc := range []struct {
		n    int
		want []string
	}{
		{0, ids},
		{10, ids},
		{12, ids},
		{3, []string{"a", "d", "g"}},
		{5, []string{"a", "c", "e", "g", "i"}},
		{1, []string{"a"}},
	} {
		if got := spread(ids, tc.n); !slices.Equal(got, tc.want) {
			t.Errorf("spread(10 ids, %d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
