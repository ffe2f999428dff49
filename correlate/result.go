package correlate

import (
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
