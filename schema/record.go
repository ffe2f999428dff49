package schema

import (
	"errors"
	"time"

	"github.com/cespare/xxhash/v2"
)

// RecordType tells a log record from a span.
type RecordType uint8

const (
	// TypeLog is a log record: one line an application wrote.
	TypeLog RecordType = iota
	// TypeSpan is a finished span: one operation with a start and an end.
	TypeSpan
)

func (t RecordType) String() string {
	if t == TypeSpan {
		return "span"
	}
	return "log"
}

// SpanStatus is the OpenTelemetry span status code.
type SpanStatus uint8

const (
	StatusUnset SpanStatus = iota
	StatusOK
	StatusError
)

// Record is one normalised log record or span, as every decoder produces it
// and every store keeps it. Ids are lowercase hex (trace ids 32 characters,
// span ids 16); an empty id means the record carried none.
//
// For a log record, Time is when it was written and Body its message.
// For a span, Time is the span's start, Duration its length, Name the
// operation, and Body is empty unless the span carried an error message
// (its status message or an exception event).
type Record struct {
	Type RecordType
	// Count is how many records alike this one it stands for when a read
	// sent its group as one (WindowQuery.Group); 0, as in every other read,
	// is itself alone. (It fills the padding after Type: no record grows.)
	Count        uint32
	Time         time.Time
	TraceID      TraceID
	SpanID       SpanID
	ParentSpanID SpanID // spans only
	Service      string
	// Severity is the OpenTelemetry severity number (1..24; 0 unknown).
	Severity     Severity
	SeverityText string
	Body         string
	Name         string        // spans: the operation; logs: the logger or code location when known
	Duration     time.Duration // spans only
	Status       SpanStatus    // spans only
	// Template is the masked, stateless template of Body (variables replaced
	// by <*>), computed at ingest; Signature is its hash.
	Template  string
	Signature Signature
	// Attrs are the remaining attributes, resource and record alike, flattened
	// to strings. Keys follow OpenTelemetry semantic conventions where one
	// exists (http.response.status_code, service.version, ...). The records
	// of a store's read may share one map: it is read only.
	Attrs map[string]string
}

// IsError reports whether the record is an error: a log at ERROR or above,
// or a span whose status is Error.
func (r *Record) IsError() bool {
	if r.Type == TypeSpan {
		return r.Status == StatusError
	}
	return r.Severity >= SeverityError
}

// IsAlert reports whether the record is what WindowQuery.ErrorsOnly
// keeps: an error, or a severity of WARN or above.
func (r *Record) IsAlert() bool { return r.IsError() || r.Severity >= SeverityWarn }

// ErrSampleOverLimit ends a store's read of a window's sample of traces
// (rootcause's serverSampler) that holds more records than the read's
// limit, after the limit's records: the analysis reads the window again,
// unsampled by the store, and keeps its newest records.
var ErrSampleOverLimit = errors.New("the window's sample holds more records than the read may take")

// TraceHash is a trace id's place in a sample of traces: a trace is in a
// sample of 1 in k (k a power of two) when TraceHash(id) % k == 0, so the
// samples nest (a trace in the 1 in 2k is in the 1 in k). It is XXH64 of
// the id's text with seed 0, which ClickHouse computes as xxHash64(TraceId),
// so that its server draws the same sample.
func TraceHash(id TraceID) uint64 { return xxhash.Sum64String(string(id)) }

// End is the end of a span (Time for a log record).
func (r *Record) End() time.Time { return r.Time.Add(r.Duration) }

// Attribute keys with a meaning to faultline (OpenTelemetry semantic conventions).
const (
	AttrServiceVersion = "service.version"
	AttrHTTPStatus     = "http.response.status_code"
	AttrRPCGRPCStatus  = "rpc.grpc.status_code"
	AttrPeerService    = "peer.service"
	AttrExceptionType  = "exception.type"
	AttrHost           = "host.name"
	AttrPod            = "k8s.pod.name"
)
