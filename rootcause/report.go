package rootcause

import (
	"time"

	"github.com/faultline/faultline/schema"
)

// Report is the analysis of an incident window: the document
// `analyze incident --json` prints and /api/v1/incident serves.
type Report struct {
	Window       Window      `json:"window"`
	Traces       int         `json:"traces"`
	FailedTraces int         `json:"failed_traces"`
	Candidates   []Candidate `json:"candidates"`
	// Additions to the contract.
	Baseline *Window `json:"baseline,omitempty"`
	// BaselineData is how much data the baseline holds: a span of hours
	// may hold a minute of it.
	BaselineData *BaselineData `json:"baseline_data,omitempty"`
	Warnings     []string      `json:"warnings,omitempty"`
	// Sampled is set when the window's healthy or failing traces were
	// sampled (sample.go): how many traces it had and how many were held.
	Sampled *Sampled `json:"sampled,omitempty"`
	// Services summarises errors per service over the window, for timelines.
	Services []ServiceSummary `json:"services,omitempty"`
	// Edges is the observed call graph (caller -> callee) in the window.
	Edges []Edge `json:"edges,omitempty"`
}

// BaselineData is what the baseline holds: its records and its minutes of
// data (ten-second slices that hold records). It is Thin when it holds
// fewer minutes of data than the window: what it lacks may be usual, and
// the evidence that it lacks it is weighed as weak.
type BaselineData struct {
	Records int     `json:"records"`
	Minutes float64 `json:"minutes"`
	Thin    bool    `json:"thin,omitempty"`
}

// Window is a half-open time range [From, To).
type Window struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
}

// Candidate is one ranked root-cause candidate. ID is stable: the same
// service, kind and signature give the same id across runs.
type Candidate struct {
	ID        string             `json:"id"`
	Rank      int                `json:"rank"`
	Service   string             `json:"service"`
	Operation string             `json:"operation,omitempty"`
	Kind      schema.Kind        `json:"kind"`
	Signature schema.Signature   `json:"signature"`
	Template  string             `json:"template,omitempty"`
	Score     float64            `json:"score"`
	Traces    int                `json:"traces"`
	FirstSeen time.Time          `json:"first_seen"`
	Evidence  []string           `json:"evidence"`
	Runbook   *schema.RunbookRef `json:"runbook,omitempty"`
	// Additions: the named signals that make up Score, example trace ids,
	// the services whose errors point here, and the entry points affected.
	Signals       []Signal         `json:"signals,omitempty"`
	ExampleTraces []schema.TraceID `json:"example_traces,omitempty"`
	PointedFrom   []string         `json:"pointed_from,omitempty"`
	EntryPoints   []string         `json:"entry_points,omitempty"`
}

// Signal is one named, explainable part of a candidate's score.
type Signal struct {
	Name   string  `json:"name"`
	Value  float64 `json:"value"`
	Reason string  `json:"reason"`
}

// ServiceSummary counts a service's records and errors over the window,
// bucketed for an error timeline.
type ServiceSummary struct {
	Service   string    `json:"service"`
	Records   int       `json:"records"`
	Errors    int       `json:"errors"`
	Onset     time.Time `json:"onset,omitzero"`
	Buckets   []int     `json:"error_buckets,omitempty"`
	BucketSec int       `json:"bucket_seconds,omitempty"`
	Role      string    `json:"role,omitempty"` // "origin", "cascade" or "healthy"
}

// Edge is one caller -> callee link seen in the window's spans.
type Edge struct {
	From   string `json:"from"`
	To     string `json:"to"`
	Calls  int    `json:"calls"`
	Errors int    `json:"errors"`
}
