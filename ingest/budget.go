package ingest

import (
	"fmt"
	"runtime/debug"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/faultline/faultline/schema"
)

// errBytesBusy answers a request whose body would take the bytes in flight
// over Limits.MaxBytesInFlight: 429, like a full set of write slots.
var errBytesBusy = fmt.Errorf("%w: request bodies in flight are over the memory limit", ErrBusy)

// byteBudget bounds the body bytes all requests hold at once (after
// decompression), so that many concurrent large or decompression-bomb
// bodies cannot take the memory that MaxBodyBytes bounds for one. Taking
// never waits: a request that does not fit is answered 429.
type byteBudget struct {
	used  atomic.Int64
	max   int64
	churn atomic.Int64 // bytes taken since memory was last returned to the OS
}

// lease is the part of the budget one request holds; release it when the
// request's buffers are no longer used. It is not safe for concurrent use.
type lease struct {
	b *byteBudget
	n int64
}

// grow takes n more bytes, or fails with errBytesBusy.
func (l *lease) grow(n int64) error {
	if l.b.used.Add(n) > l.b.max {
		l.b.used.Add(-n)
		return errBytesBusy
	}
	l.n += n
	l.b.churn.Add(n)
	return nil
}

// shrink gives back n bytes (a buffer replaced by a larger one).
func (l *lease) shrink(n int64) {
	l.b.used.Add(-n)
	l.n -= n
}

// release gives back everything l holds.
func (l *lease) release() { l.shrink(l.n) }

// Returning memory to the OS after large bodies: without it the process
// keeps its peak RSS long after a burst of large (or decompression-bomb)
// bodies is gone. Once no body is being read and bigBody or more were
// taken since the last time, the freed heap is returned, at most once
// every freeEvery; under steady load the heap is reused instead.
const (
	bigBody   = 32 << 20
	freeEvery = time.Second
)

// returnMemory is called after a request released its lease.
func (b *byteBudget) returnMemory(last *atomic.Int64) {
	if b.used.Load() != 0 || b.churn.Load() < bigBody {
		return
	}
	now, prev := time.Now().UnixNano(), last.Load()
	if now-prev < int64(freeEvery) || !last.CompareAndSwap(prev, now) {
		return
	}
	b.churn.Store(0)
	go debug.FreeOSMemory()
}

// recordBudget counts the decoded records of one request against
// Limits.MaxRecordBytes and the server's byte budget (through the request's
// lease), so that a small body that decodes into millions of records
// cannot take gigabytes. Once either is spent it keeps the first error and
// refuses every later record: the request then fails whole.
type recordBudget struct {
	l    *lease
	max  int64
	used int64
	err  error
}

// take counts r (held records are already held) or refuses it. A nil
// budget takes everything.
func (m *recordBudget) take(r *schema.Record, held int) bool {
	if m == nil {
		return true
	}
	if m.err != nil {
		return false
	}
	n := recordSize(r)
	if m.used+n > m.max {
		m.err = badInput(ErrTooLarge, nil, "the body holds more records than one request may (%d MiB of records once decoded, reached after %d records); send smaller batches",
			m.max>>20, held)
		return false
	}
	if err := m.l.grow(n); err != nil {
		m.err = err
		return false
	}
	m.used += n
	return true
}

func (m *recordBudget) error() error {
	if m == nil {
		return nil
	}
	return m.err
}

// recordOverhead is what a decoded record costs beside its strings: the
// Record itself, a slot in the batch's growing slice, its attribute map's
// buckets, and the store's encoding of it (row, buffer) while it is
// written; measured with a JSON lines body of 1.4 million short records.
const recordOverhead = 3*int64(unsafe.Sizeof(schema.Record{})) + 512

// recordSize estimates the memory one decoded record holds while its
// request is decoded and written: its strings twice (the record and the
// store's encoding of it) and a fixed overhead.
func recordSize(r *schema.Record) int64 {
	n := len(r.TraceID) + len(r.SpanID) + len(r.ParentSpanID) + len(r.Service) + len(r.SeverityText) +
		len(r.Body) + len(r.Name) + len(r.Template) + len(r.Signature)
	for k, v := range r.Attrs {
		n += len(k) + len(v) + 48 // a map entry: two string headers and a share of its bucket
	}
	return recordOverhead + 2*int64(n)
}
