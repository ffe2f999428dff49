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

// TestIncidentHeadlineIsTheShareExplained: a candidate's line shows the
// share of the window's anomalous requests it explains, never above 100%,
// where its score (the share plus its symptoms' terms, which ranks) is
// over 1; --json keeps the score.
func TestIncidentHeadlineIsTheShareExplained(t *testing.T) {
	rep := &rootcause.Report{Traces: 102, FailedTraces: 51, Candidates: []rootcause.Candidate{
		{Rank: 1, Service: "fx-rates-api", Kind: "dependency-timeout", Score: 1.02, Traces: 51, Evidence: []string{
			"explains 92% of the window's anomalous requests, each weighed by how unusual it is (failing traces that begin here 92%) [explained]",
			"its p95 latency seen by its callers went from 301 ms to 5.0 s [latency]"}},
		{Rank: 2, Service: "checkout", Kind: "unknown", Score: 0.03, Evidence: []string{"new error template [new_errors]"}},
	}}
	var b strings.Builder
	if err := writeIncident(&b, rep, ""); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"#1  fx-rates-api  dependency-timeout  explains 92%  51 failing traces", "#2  checkout  unknown  symptoms only"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "1.02") || strings.Contains(out, "score") {
		t.Errorf("the text shows the score:\n%s", out)
	}
}
