package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/sim"
)

func TestRunWritesCases(t *testing.T) {
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	args := []string{"-out", out, "-cases", "2", "-seed", "5", "-tps", "1", "-window", "3m", "-baseline", "2m"}
	if code := run(context.Background(), args, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	dirs, _ := os.ReadDir(out)
	if len(dirs) != 2 {
		t.Fatalf("%d case folders, want 2", len(dirs))
	}
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(out, d.Name(), "truth.json"))
		if err != nil {
			t.Fatal(err)
		}
		var truth struct {
			RootCause struct{ Service, Kind string } `json:"root_cause"`
		}
		if err := json.Unmarshal(b, &truth); err != nil || truth.RootCause.Service == "" {
			t.Errorf("%s: truth.json %v, root cause %+v", d.Name(), err, truth.RootCause)
		}
	}
	if lines := strings.Count(stdout.String(), "\n"); lines != 2 {
		t.Errorf("stdout has %d lines, want one per case: %q", lines, stdout.String())
	}
}

func TestRunOneFault(t *testing.T) {
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	args := []string{"-out", out, "-cases", "2", "-fault", "oom", "-tps", "1", "-window", "3m", "-baseline", "1m"}
	if code := run(context.Background(), args, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "sim-oom-1") || !strings.Contains(stdout.String(), "sim-oom-2") {
		t.Errorf("stdout %q does not name the two oom cases", stdout.String())
	}
}

func TestRunTopologiesAndFaultTypes(t *testing.T) {
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	args := []string{"-out", out, "-cases", "3", "-seed", "7", "-fault", "silent-db", "-topology", "all", "-tps", "1", "-window", "3m", "-baseline", "1m"}
	if code := run(context.Background(), args, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	for _, want := range []string{"sim-silent-db-7", "sim-jobqueue-silent-db-8", "sim-edge-silent-db-9"} {
		b, err := os.ReadFile(filepath.Join(out, want, "truth.json"))
		if err != nil {
			t.Fatalf("%s: %v; stdout %q", want, err, stdout.String())
		}
		var truth struct {
			Topology  string `json:"topology"`
			RootCause struct {
				Kind      string `json:"kind"`
				FaultType string `json:"fault_type"`
			} `json:"root_cause"`
		}
		if err := json.Unmarshal(b, &truth); err != nil || truth.RootCause.Kind != "dependency-timeout" || truth.RootCause.FaultType != "silent-db" || !strings.Contains(want, truth.Topology) && truth.Topology != "shop" {
			t.Errorf("%s: truth %+v (%v)", want, truth, err)
		}
	}
}

func TestRunBadUsage(t *testing.T) {
	cases := [][]string{
		{},
		{"-out"},
		{"-out", t.TempDir(), "-cases", "0"},
		{"-out", t.TempDir(), "-fault", "volcano"},
		{"-out", t.TempDir(), "-topology", "mesh"},
		{"-out", t.TempDir(), "-topology", "shop,mesh"},
		{"-out", t.TempDir(), "extra"},
		{"-nope"},
	}
	for _, args := range cases {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), args, &stdout, &stderr); code != exitUsage {
			t.Errorf("run(%q) = %d, want %d", args, code, exitUsage)
		}
		if stderr.Len() == 0 {
			t.Errorf("run(%q) said nothing on stderr", args)
		}
	}
}

func TestRunCannotWrite(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	args := []string{"-out", file, "-cases", "1", "-tps", "1", "-window", "3m", "-baseline", "1m"}
	if code := run(context.Background(), args, &stdout, &stderr); code != exitFail {
		t.Errorf("exit %d, want %d; stderr %q", code, exitFail, stderr.String())
	}
}

// TestRunSeedSystems: -topology all takes the seed systems after the
// generic shapes, each case of a seed system one of its own faults; a
// seed system's fault elsewhere is refused in a sentence naming its system.
func TestRunSeedSystems(t *testing.T) {
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	args := []string{"-out", out, "-cases", "7", "-seed", "90600", "-topology", "all", "-tps", "0.5", "-window", "3m", "-baseline", "1m"}
	if code := run(context.Background(), args, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	for i, want := range []string{"sim-routing-region-api-outage-90603", "sim-jobclaim-holder-api-slow-90604",
		"sim-triage-classifier-new-label-90605", "sim-payment-gateway-timeout-90606"} {
		b, err := os.ReadFile(filepath.Join(out, want, "truth.json"))
		if err != nil {
			t.Fatalf("%s: %v; stdout %q", want, err, stdout.String())
		}
		var truth struct {
			Topology string `json:"topology"`
		}
		if err := json.Unmarshal(b, &truth); err != nil || truth.Topology != sim.SeedTopologies()[i] {
			t.Errorf("%s: topology %q (%v)", want, truth.Topology, err)
		}
	}
	args = []string{"-out", out, "-cases", "2", "-seed", "90610", "-topology", "payment,jobclaim", "-tps", "0.5", "-window", "3m", "-baseline", "1m"}
	if code := run(context.Background(), args, &stdout, &stderr); code != exitOK {
		t.Fatalf("a list of topologies: exit %d, stderr %q", code, stderr.String())
	}
	for _, want := range []string{"sim-payment-gateway-timeout-90610", "sim-jobclaim-holder-api-slow-90611"} {
		if _, err := os.Stat(filepath.Join(out, want, "truth.json")); err != nil {
			t.Errorf("a list of topologies: %v", err)
		}
	}
	// A seed system takes its own faults in turn over its own cases, in
	// a list as alone.
	stdout.Reset()
	args = []string{"-out", out, "-cases", "8", "-seed", "90620", "-topology", "routing,jobclaim,triage,payment", "-tps", "0.5", "-window", "3m", "-baseline", "1m"}
	if code := run(context.Background(), args, &stdout, &stderr); code != exitOK {
		t.Fatalf("the four seed systems: exit %d, stderr %q", code, stderr.String())
	}
	for _, sys := range []string{"jobclaim", "triage", "payment"} {
		for _, f := range sim.TopologyFaults(sys) {
			if !strings.Contains(stdout.String(), "sim-"+sys+"-"+f.Type+"-") {
				t.Errorf("8 cases of four seed systems: %s never has %s:\n%s", sys, f.Type, stdout.String())
			}
		}
	}
	stderr.Reset()
	args = []string{"-out", out, "-cases", "1", "-fault", "d1-unavailable", "-topology", "shop", "-tps", "0.5", "-window", "3m", "-baseline", "1m"}
	if code := run(context.Background(), args, &stdout, &stderr); code != exitUsage || !strings.Contains(stderr.String(), "a fault of the routing system") {
		t.Errorf("d1-unavailable in the shop: exit %d, stderr %q", code, stderr.String())
	}
}
