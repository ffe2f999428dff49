package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/faultline/faultline/rootcause"
)

// TestIncidentTopRange: --top takes 1..rootcause.MaxTop, the same range
// as the web API's top.
func TestIncidentTopRange(t *testing.T) {
	path := traceStore(t)
	window := []string{"--store", path, "--from", "2026-03-01T11:55:00Z", "--to", "2026-03-01T12:05:00Z"}
	max := strconv.Itoa(rootcause.MaxTop)
	if code, _, errs := runCmd(t, append([]string{"incident", "--top", max}, window...)...); code != exitOK {
		t.Errorf("--top %s: exit %d, stderr %q; want 0", max, code, errs)
	}
	for _, top := range []string{"0", strconv.Itoa(rootcause.MaxTop + 1)} {
		code, _, errs := runCmd(t, append([]string{"incident", "--top", top}, window...)...)
		if code != exitUsage || !strings.Contains(errs, "between 1 and "+max) {
			t.Errorf("--top %s: exit %d, stderr %q; want %d naming 1..%s", top, code, errs, exitUsage, max)
		}
	}
}

// TestIncidentSinceOverflow: durations are parsed with overflow checks and
// a documented cap; an overflow says so instead of "not a positive duration".
func TestIncidentSinceOverflow(t *testing.T) {
	path := traceStore(t)
	for _, since := range []string{"9999999h", "213504d", "3651d"} {
		code, out, errs := runCmd(t, "incident", "--store", path, "--since", since)
		if code != exitUsage || out != "" || !strings.Contains(errs, "is too long: the longest is 3650d") || strings.Count(errs, "\n") != 1 {
			t.Errorf("--since %s: exit %d, stderr %q; want 2 naming the 3650d cap", since, code, errs)
		}
	}
	if code, _, errs := runCmd(t, "incident", "--store", path, "--since", "banana"); code != exitUsage || !strings.Contains(errs, "not a positive duration") {
		t.Errorf("--since banana: exit %d, %q", code, errs)
	}
}
