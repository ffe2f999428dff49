package ingest

import "time"

// Limits names every limit of ingest once. The zero value of a field means
// "use the default"; DefaultLimits gives the defaults and Normalize fills a
// partly set Limits from them.
type Limits struct {
	// MaxBodyBytes caps a request body or one Loki/OTLP body line after
	// decompression. Over it the HTTP layer answers 413.
	MaxBodyBytes int64
	// MaxLineBytes caps one JSON or text line (and one log message).
	// Longer lines are skipped and counted as ReasonLineTooLong.
	MaxLineBytes int
	// MaxAttrs caps the attributes kept per record; the rest are dropped
	// and the record counted as truncated.
	MaxAttrs int
	// MaxKeyBytes caps an attribute name; longer names are dropped.
	MaxKeyBytes int
	// MaxValueBytes caps an attribute value (and service, name); longer
	// values are cut at a UTF-8 boundary.
	MaxValueBytes int
	// MaxRecordsPerBatch is how many records ingest load gathers before a
	// WriteBatch (a body line of a Loki or OTLP file is written whole). An HTTP request is written whole, in one WriteBatch,
	// so that its answer is all or nothing; MaxBodyBytes bounds it.
	MaxRecordsPerBatch int
	// MaxRecordBytes caps the memory the records decoded from one HTTP
	// request hold (an estimate: each record's fields and attributes plus a
	// fixed overhead, counted as they are decoded, including what the store
	// needs to encode them). A small body can decode into many records —
	// 60 MB of short JSON lines are 1.4 million — so MaxBodyBytes alone does
	// not bound them; over MaxRecordBytes the request gets 413 and nothing
	// of it is stored. The estimate is also taken from MaxBytesInFlight.
	MaxRecordBytes int64
	// MaxDepth caps how deep nested JSON objects are flattened.
	MaxDepth int
	// MaxInFlight caps concurrent decodes and store writes of the HTTP
	// server; a request over it gets 429 with Retry-After. A request takes
	// its slot only once its body is read, so slow uploads do not hold one.
	MaxInFlight int
	// MaxBytesInFlight caps the body bytes (after decompression) and the
	// decoded records (MaxRecordBytes' estimate) that all requests being
	// read, decoded or written hold at once; a request that would go over it
	// gets 429 with Retry-After. MaxBodyBytes and MaxRecordBytes cap one
	// request.
	MaxBytesInFlight int64
	// BodyTimeout is how long the server waits for a request body to
	// arrive whole; a slower upload gets 408.
	BodyTimeout time.Duration
	// RetryAfter is the Retry-After the server sends with 429 and 503.
	RetryAfter time.Duration
	// MaxGRPCMessageBytes caps one OTLP/gRPC message as it travels (before
	// gunzip; gRPC's and the Collector receiver's own default, which every
	// OTLP exporter is sized for); after gunzip MaxBodyBytes applies. A
	// call reserves twice this (gRPC's buffers and the message) from
	// MaxBytesInFlight before its message is read, so that messages being
	// received, however slowly, hold at most that budget.
	MaxGRPCMessageBytes int64
	// MaxGRPCConns caps the OTLP/gRPC connections open at once; more wait
	// to be accepted. Each carries at most MaxInFlight calls at once.
	MaxGRPCConns int
	// ConnIdleTimeout closes a connection that had no request (gRPC: no
	// call) for this long.
	ConnIdleTimeout time.Duration
}

// Nesting of OTLP/JSON bodies. maxOTLPRecordNesting is how deep the JSON of
// one log record or span may nest (128 levels: about 32 nested kvlist
// attributes, as deep as pdata reads them in protobuf); a record nested
// deeper is rejected alone as bad_json. maxJSONNesting is encoding/json's
// own limit: a body nested deeper outside any record is malformed.
const (
	maxOTLPRecordNesting = 128
	maxJSONNesting       = 10000
)

// DefaultLimits returns the limits used when none are configured.
func DefaultLimits() Limits {
	return Limits{
		MaxBodyBytes:       64 << 20,
		MaxLineBytes:       256 << 10,
		MaxAttrs:           128,
		MaxKeyBytes:        256,
		MaxValueBytes:      16 << 10,
		MaxRecordsPerBatch: 5000,
		MaxRecordBytes:     64 << 20,
		MaxDepth:           8,
		MaxInFlight:        8,
		MaxBytesInFlight:   256 << 20,
		BodyTimeout:        time.Minute,
		RetryAfter:         2 * time.Second,

		MaxGRPCMessageBytes: 4 << 20,
		MaxGRPCConns:        256,
		ConnIdleTimeout:     2 * time.Minute,
	}
}

// Normalize returns l with every zero or negative field set to its default.
func (l Limits) Normalize() Limits {
	d := DefaultLimits()
	if l.MaxBodyBytes <= 0 {
		l.MaxBodyBytes = d.MaxBodyBytes
	}
	if l.MaxLineBytes <= 0 {
		l.MaxLineBytes = d.MaxLineBytes
	}
	if l.MaxAttrs <= 0 {
		l.MaxAttrs = d.MaxAttrs
	}
	if l.MaxKeyBytes <= 0 {
		l.MaxKeyBytes = d.MaxKeyBytes
	}
	if l.MaxValueBytes <= 0 {
		l.MaxValueBytes = d.MaxValueBytes
	}
	if l.MaxRecordsPerBatch <= 0 {
		l.MaxRecordsPerBatch = d.MaxRecordsPerBatch
	}
	if l.MaxRecordBytes <= 0 {
		l.MaxRecordBytes = d.MaxRecordBytes
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = d.MaxDepth
	}
	if l.MaxInFlight <= 0 {
		l.MaxInFlight = d.MaxInFlight
	}
	if l.MaxBytesInFlight <= 0 {
		l.MaxBytesInFlight = d.MaxBytesInFlight
	}
	// One request must fit: a snappy body and its decoding (each up to
	// max+1) and its records.
	if least := 2*l.MaxBodyBytes + 2 + l.MaxRecordBytes; l.MaxBytesInFlight < least {
		l.MaxBytesInFlight = least
	}
	if l.BodyTimeout <= 0 {
		l.BodyTimeout = d.BodyTimeout
	}
	if l.RetryAfter <= 0 {
		l.RetryAfter = d.RetryAfter
	}
	if l.MaxGRPCMessageBytes <= 0 {
		l.MaxGRPCMessageBytes = d.MaxGRPCMessageBytes
	}
	l.MaxGRPCMessageBytes = min(l.MaxGRPCMessageBytes, l.MaxBodyBytes)
	if l.MaxGRPCConns <= 0 {
		l.MaxGRPCConns = d.MaxGRPCConns
	}
	if l.ConnIdleTimeout <= 0 {
		l.ConnIdleTimeout = d.ConnIdleTimeout
	}
	return l
}
