package schema

import "time"

// WindowQuery selects records by time for incident analysis.
// From is inclusive, To exclusive; zero Service means all services.
type WindowQuery struct {
	From, To time.Time
	Service  string
	// ErrorsOnly keeps only records for which IsError is true or whose
	// severity is WARN or above.
	ErrorsOnly bool
	// Limit caps the number of records returned; 0 means the store's default cap.
	Limit int
	// Newest, when the window holds more than Limit records, returns the
	// newest Limit of them (still in time order) rather than the oldest:
	// an incident window cut at the limit keeps its end, where the
	// incident is.
	Newest bool
	// Attrs, when not nil, are the only attribute keys the caller reads: a
	// store may leave the others out of Record.Attrs (and save decoding
	// them), or return them all. Records may then share one Attrs map:
	// treat it as read-only. nil means every attribute.
	Attrs []string
	// Group, on a sampled read (a store's SampledRecords), lets the store
	// send the error records of the traces out of the sample as one
	// record per group of them alike (Record.Count): the same fields but
	// the ids, the duration and, when the template was stored, the body,
	// within one Group.Slot of Unix time and one of Group.Parts equal
	// parts of [From, To). The record sent is the group's first, in the
	// read's order. Nil: every record alone.
	Group *RecordGroups
}

// RecordGroups is how a read may group records (WindowQuery.Group).
type RecordGroups struct {
	Slot  time.Duration
	Parts int
}

// TraceSummary is one trace seen in a window, as a store can list it cheaply.
type TraceSummary struct {
	TraceID  TraceID
	Start    time.Time
	Records  int
	Errors   int
	Services []string
}

// RunbookRef is how an analysis result links to its runbook.
type RunbookRef struct {
	ID         string `json:"id"`
	Severity   string `json:"severity"`
	MTTRTarget string `json:"mttr_target"`
	URL        string `json:"url"`
}
