package correlate

import (
	"fmt"
	"time"

	"github.com/faultline/faultline/schema"
)

// Result is the analysis of one trace: the document `analyze trace --json`
// prints and /api/v1/trace/ID serves. The fields named in the contract are
// stable; the rest are additions.
type Result struct {
	TraceID schema.TraceID `json:"trace_id"`
	Failed  bool           `json:"failed"`
	Origin  *Event         `json:"origin"`
	Cascade []Event        `json:"cascade"`
	Suspect *Suspect       `json:"suspect"`
	Events  int            `json:"events"`
	// Additions to the contract.
	Services []string           `json:"services,omitempty"`
	Start    time.Time          `json:"start,omitzero"`
	Duration float64            `json:"duration_ms,omitempty"`
	Timeline []TimelineEntry    `json:"timeline,omitempty"`
	Warnings []string           `json:"warnings,omitempty"`
	Runbook  *schema.RunbookRef `json:"runbook,omitempty"`

	// Per-trace facts for incident analysis (rootcause), so it need not
	// redo this work. Not part of the JSON document.

	// Failures lists every error and failure signal, in causal order.
	Failures []Failure `json:"-"`
	// Edges are the caller -> callee service pairs seen in the span tree,
	// in order of first call.
	Edges []CallEdge `json:"-"`
	// Spans summarises every span record, in causal order.
	Spans []SpanSummary `json:"-"`

	// lead is set when the suspect is the silent dependency of an open
	// breaker, for Analyze to follow across traces.
	lead *breakerLead
	// fastOnly is set when Options.suspectFrom names a service that only
	// failed fast (its own breaker open) or not at all in this trace.
	fastOnly bool
	// caller is set when the suspect is a callee silent in the trace:
	// the service whose failure named it, and when.
	caller *silentCaller
	// ownSig is the signature of the error the suspect failed with when
	// it failed on its own, with no failing dependency; ownAt when.
	ownSig schema.Signature
	ownAt  time.Time
	ownRec int32 // its index in the records analysed
	// path lists the services the suspect walk went through, in order,
	// when it started from Options.suspectFrom.
	path []string
}

// silentCaller is the service whose failed call named a suspect that left
// no record of its own, and the time of that failure.
type silentCaller struct {
	svc string
	at  time.Time
}

// Failure is one error or failure signal of a trace as incident analysis
// needs it.
type Failure struct {
	Service   string
	Operation string // the span operation it belongs to, "" unknown
	// Time is the clock-skew corrected time of the failure (a span's end).
	Time      time.Time
	Class     schema.Kind
	Error     bool // false: a failure signal logged below ERROR (GC pause, pool wait, retry)
	Signature schema.Signature
	// Target is the service (or external host) the failure points at:
	// the failing call's callee. "" when it points nowhere.
	Target string
	// Via tells how Target was found: "span tree", "attribute" or
	// "message", or "quoted error"; followed by the rule's name in
	// brackets when a per-trace rule named it ("attribute
	// [callee_named]").
	Via string
	// Role is "origin", "cascade" or "" (signals, and errors folded away).
	Role string
	// Record is the index of the record in the input of AnalyzeRecords.
	Record int
}

// CallEdge is one caller -> callee service pair of a trace's span tree.
type CallEdge struct {
	From, To string
	Calls    int // child spans of From's spans run by To
	Errors   int // of those, spans with an error status or an error logged in them
}

// SpanSummary is one span as incident analysis needs it.
type SpanSummary struct {
	Service   string
	Operation string
	// Parent is the service of the parent span; "" for a root.
	Parent   string
	Start    time.Time // clock-skew corrected
	Duration time.Duration
	Error    bool // error status, or an error logged in the span
}

// Event is one error record in the origin or the cascade.
type Event struct {
	Service   string        `json:"service"`
	SpanID    schema.SpanID `json:"span_id,omitempty"`
	Timestamp time.Time     `json:"timestamp"`
	Message   string        `json:"message"`
	Class     schema.Kind   `json:"class"`
	// CausedBy names the service whose failure this one followed from
	// (cascade entries only).
	CausedBy  string           `json:"caused_by,omitempty"`
	Signature schema.Signature `json:"signature,omitempty"`
	Operation string           `json:"operation,omitempty"`
	// Repeats counts later errors of the same service with the same
	// signature (retries), folded into this event.
	Repeats int `json:"repeats,omitempty"`
}

// Suspect is where the origin points: the origin's own service, or the
// dependency that a timeout, open breaker, full bulkhead or refused
// connection points at.
type Suspect struct {
	Service string      `json:"service"`
	Kind    schema.Kind `json:"kind"`
	Reason  string      `json:"reason"`
}

// TimelineEntry is one record of the trace in causal order.
type TimelineEntry struct {
	Index     int       `json:"index"`
	Type      string    `json:"type"` // "log" or "span"
	Timestamp time.Time `json:"timestamp"`
	// Adjusted is the clock-skew correction applied to this record, in ms.
	AdjustedMs float64           `json:"adjusted_ms,omitempty"`
	Depth      int               `json:"depth"`
	Service    string            `json:"service"`
	SpanID     schema.SpanID     `json:"span_id,omitempty"`
	ParentID   schema.SpanID     `json:"parent_span_id,omitempty"`
	Severity   string            `json:"severity"`
	Message    string            `json:"message"`
	DurationMs float64           `json:"duration_ms,omitempty"`
	Class      schema.Kind       `json:"class,omitempty"`
	Role       string            `json:"role,omitempty"` // "origin", "cascade" or ""
	Attrs      map[string]string `json:"attrs,omitempty"`
}

// CapTimeline returns the result with at most max timeline entries, noting
// the cut in its warnings (an API answer, an assistant's tool); res itself
// is not modified, as it may be shared.
func (res *Result) CapTimeline(max int) *Result {
	if len(res.Timeline) <= max {
		return res
	}
	cp := *res
	cp.Timeline = res.Timeline[:max]
	cp.Warnings = append(append([]string(nil), res.Warnings...),
		fmt.Sprintf("timeline truncated to the first %d of %d records", max, len(res.Timeline)))
	return &cp
}
