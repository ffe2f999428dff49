package ingest

import (
	"maps"
	"slices"

	"github.com/faultline/faultline/schema"
)

// Reason names why a record was rejected. Reasons are stable strings: they
// appear in responses and as a metric label.
type Reason string

const (
	ReasonBadJSON     Reason = "bad_json"      // a line or body that is not valid JSON
	ReasonBadProto    Reason = "bad_protobuf"  // a body that is not valid protobuf
	ReasonLineTooLong Reason = "line_too_long" // a line or message over Limits.MaxLineBytes
	ReasonBadTraceID  Reason = "bad_trace_id"  // a trace id field that is not a valid id
	ReasonBadSpanID   Reason = "bad_span_id"   // a span id field that is not a valid id
	ReasonBadTime     Reason = "bad_timestamp" // a timestamp that cannot be read, or outside schema.TimeInRange
	ReasonEmpty       Reason = "empty"         // a record with neither message nor span
	ReasonTooMany     Reason = "too_many_records"
)

// RecordSink takes records from a decoder one at a time. Add receives a
// fully built record (the sink may complete derived fields such as the
// template); Reject counts one record the decoder could not use.
type RecordSink interface {
	Add(r schema.Record)
	Reject(reason Reason)
}

// Stats is what a decode or a request did: records accepted, records
// rejected by reason, and accepted records whose attributes were cut to the
// limits. An empty Rejects map means nothing was rejected.
type Stats struct {
	Accepted  int            `json:"accepted"`
	Rejected  int            `json:"rejected"`
	Rejects   map[Reason]int `json:"rejects,omitempty"`
	Truncated int            `json:"truncated,omitempty"`
}

// Merge adds o to s.
func (s *Stats) Merge(o Stats) {
	s.Accepted += o.Accepted
	s.Truncated += o.Truncated
	for r, n := range o.Rejects {
		s.reject(r, n)
	}
}

func (s *Stats) reject(r Reason, n int) {
	if s.Rejects == nil {
		s.Rejects = map[Reason]int{}
	}
	s.Rejects[r] += n
	s.Rejected += n
}

// Reasons lists the reasons in s in sorted order.
func (s *Stats) Reasons() []Reason {
	return slices.Sorted(maps.Keys(s.Rejects))
}

// Batch is the RecordSink of one request or one load chunk: it completes
// each record (limits, template, signature) and keeps it in arrival order.
// Records is owned by the Batch until Reset; the caller hands it to
// Sink.WriteBatch and then calls Reset.
type Batch struct {
	Records []schema.Record
	Stats   Stats
	lim     Limits
	mem     *recordBudget // nil: records are not counted (ingest load's batches are bounded by count)
}

// NewBatch returns an empty batch enforcing lim (zero fields take defaults).
func NewBatch(lim Limits) *Batch {
	return &Batch{lim: lim.Normalize()}
}

// Add completes r and keeps it. A log record whose message is over the line
// limit, and a record whose time no store can hold, are rejected instead.
func (b *Batch) Add(r schema.Record) {
	if !schema.TimeInRange(r.Time) {
		b.Reject(ReasonBadTime)
		return
	}
	if r.Type == schema.TypeLog && len(r.Body) > b.lim.MaxLineBytes {
		b.Reject(ReasonLineTooLong)
		return
	}
	cut := complete(&r, b.lim)
	if !b.mem.take(&r, len(b.Records)) {
		return // over a memory limit: the request fails whole (Batch.Err)
	}
	if cut {
		b.Stats.Truncated++
	}
	b.Records = append(b.Records, r)
	b.Stats.Accepted++
}

// Err is why the batch stopped keeping records (the records it holds are
// over Limits.MaxRecordBytes or the server's bytes in flight), or nil. A
// batch with an error must not be written: it holds only some records.
func (b *Batch) Err() error { return b.mem.error() }

// Reject counts one rejected record.
func (b *Batch) Reject(reason Reason) { b.Stats.reject(reason, 1) }

// Len is the number of records kept since the last Reset.
func (b *Batch) Len() int { return len(b.Records) }

// Reset drops the kept records (Stats are kept; they count the whole run).
func (b *Batch) Reset() {
	clear(b.Records)
	b.Records = b.Records[:0]
}
