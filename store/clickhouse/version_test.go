package clickhouse

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckVersion(t *testing.T) {
	for _, tc := range []struct {
		v  string
		ok bool
	}{
		{"26.5.1.1", true}, {"23.3", true}, {"23.3.0", true}, {"v24.8.4.13-lts", true}, {"100.0.0", true},
		{"23.2.9.1", false}, {"22.8.5.29", false}, {"18.16.1", false}, {"1.1.54394", false},
		{"", false}, {"abc", false}, {"23", false}, {"23.x", false}, {"-1.5", false},
	} {
		err := checkVersion(tc.v)
		if (err == nil) != tc.ok {
			t.Errorf("checkVersion(%q) = %v, want ok=%v", tc.v, err, tc.ok)
			continue
		}
		if err != nil && !errors.Is(err, ErrServerVersion) {
			t.Errorf("checkVersion(%q) = %v, does not wrap ErrServerVersion", tc.v, err)
		}
	}
	err := checkVersion("22.8.5.29")
	if err == nil || !strings.Contains(err.Error(), MinVersion) || !strings.Contains(err.Error(), "22.8.5.29") {
		t.Errorf("the refusal %q must name the server's version and %s", err, MinVersion)
	}
}
