// Package evaluate scores the analysis against labelled incidents: case
// folders holding input files and a truth.json (the layout of
// shared/datasets/README.md), each loaded into a fresh embedded store and
// analysed as a user would. On the same store it also scores plain
// baseline methods (baselines.go), for the analysis to be measured
// against, and the analysis with each of its rules off (ablate.go).
package evaluate

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/faultline/faultline/schema"
)

// ErrNoTruth is returned for a folder without a readable truth.json.
var ErrNoTruth = errors.New("no truth.json")

// Truth is a case's truth.json.
type Truth struct {
	Scenario string `json:"scenario"`
	Window   struct {
		From time.Time `json:"from"`
		To   time.Time `json:"to"`
	} `json:"window"`
	Onset     time.Time `json:"onset"`
	RootCause struct {
		Service string `json:"service"`
		// Kind is the failure kind; LoadCase fills it from FaultType
		// when truth.json names none and the fault type names one.
		Kind      string `json:"kind,omitempty"`
		FaultType string `json:"fault_type,omitempty"`
	} `json:"root_cause"`
	FailedTraces map[string]struct {
		OriginService string `json:"origin_service"`
	} `json:"failed_traces,omitempty"`
	ExtraFiles []string `json:"extra_files,omitempty"`
}

// Case is one case folder.
type Case struct {
	Name  string
	Dir   string
	Truth Truth
	// Files are the input files, extra files (history) first.
	Files []string
}

// LoadCase reads a case folder.
func LoadCase(dir string) (*Case, error) {
	b, err := os.ReadFile(filepath.Join(dir, "truth.json"))
	if err != nil {
		return nil, fmt.Errorf("cannot read case %q: %w", dir, ErrNoTruth)
	}
	c := &Case{Name: filepath.Base(filepath.Clean(dir)), Dir: dir}
	if err := json.Unmarshal(b, &c.Truth); err != nil {
		return nil, fmt.Errorf("cannot read %q: %w", filepath.Join(dir, "truth.json"), err)
	}
	if c.Truth.RootCause.Service == "" || !c.Truth.Window.To.After(c.Truth.Window.From) {
		return nil, fmt.Errorf("case %q: truth.json needs root_cause.service and a window whose end is after its start", dir)
	}
	if c.Truth.RootCause.Kind == "" {
		c.Truth.RootCause.Kind = string(kindOfFaultType(c.Truth.RootCause.FaultType))
	}
	for _, f := range c.Truth.ExtraFiles {
		c.Files = append(c.Files, filepath.Join(dir, f))
	}
	own, err := inputFiles(dir)
	if err != nil {
		return nil, err
	}
	c.Files = append(c.Files, own...)
	return c, nil
}

// kindOfFaultType is the failure kind a real data set's fault type names
// (Nezha's), so that kind accuracy is scored where truth.json names no
// kind; "" for the fault types that name none (a method that returns a
// wrong value or throws can fail in any way).
func kindOfFaultType(t string) schema.Kind {
	switch t {
	case "cpu_contention", "cpu_consumed":
		return schema.KindCPUStarvation
	case "network_delay":
		return schema.KindNetworkDelay
	}
	return ""
}

// inputFiles lists a folder's input files in name order: everything but
// truth.json, hidden files and folders.
func inputFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("cannot list case %q: %w", dir, err)
	}
	var out []string
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || n == "truth.json" || strings.HasPrefix(n, ".") || strings.HasSuffix(n, ".md") {
			continue
		}
		out = append(out, filepath.Join(dir, n))
	}
	slices.Sort(out)
	return out, nil
}

// FindCases expands each path: a case folder itself, or a folder whose
// sub-folders are cases. Folders without truth.json below a parent are
// skipped (a baseline folder, say).
func FindCases(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		if _, err := os.Stat(filepath.Join(p, "truth.json")); err == nil {
			out = append(out, p)
			continue
		}
		ents, err := os.ReadDir(p)
		if err != nil {
			return nil, fmt.Errorf("cannot read %q: %w", p, err)
		}
		n := len(out)
		for _, e := range ents {
			sub := filepath.Join(p, e.Name())
			if _, err := os.Stat(filepath.Join(sub, "truth.json")); e.IsDir() && err == nil {
				out = append(out, sub)
			}
		}
		if len(out) == n {
			return nil, fmt.Errorf("%q holds no case folder (a folder with truth.json)", p)
		}
	}
	return out, nil
}
