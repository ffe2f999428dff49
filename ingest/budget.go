package ingest

import (
	"fmt"
	"runtime/debug"
	"sync"
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
	used    atomic.Int64
	max     int64
	churn   atomic.Int64  // bytes taken since memory was last returned to the OS
	waiting atomic.Bool   // a return of memory is scheduled (afterIdle)
	idle    time.Duration // how long nothing is held before memory is returned (0: freeEvery)
	free    func()        // returns memory to the OS (nil: debug.FreeOSMemory)
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
// bodies is gone. Once bigBody or more were taken and no body has been
// held for freeEvery, the freed heap is returned. Under steady load, even
// from one client sending one request after another, the heap is reused
// instead: returning it after every request cost a forced collection and
// the page faults of taking the memory back, a tenth of the CPU of
// ingesting.
const (
	bigBody   = 32 << 20
	freeEvery = time.Second
)

// returnMemory is called after a request released its lease; last is when
// a request last did (Unix ns).
func (b *byteBudget) returnMemory(last *atomic.Int64) {
	last.Store(time.Now().UnixNano())
	if b.used.Load() != 0 || b.churn.Load() < bigBody || !b.waiting.CompareAndSwap(false, true) {
		return
	}
	b.afterIdle(last)
}

// afterIdle returns memory once nothing was held for freeEvery since the
// last release, checking again until then.
func (b *byteBudget) afterIdle(last *atomic.Int64) {
	idle := b.idle
	if idle == 0 {
		idle = freeEvery
	}
	wait := time.Duration(last.Load() + int64(idle) - time.Now().UnixNano())
	time.AfterFunc(max(wait, 0), func() {
		if b.used.Load() != 0 {
			// The request holding memory schedules again when it ends
			// (also if it ended just now, before waiting was cleared).
			b.waiting.Store(false)
			if b.used.Load() == 0 && b.waiting.CompareAndSwap(false, true) {
				b.afterIdle(last)
			}
			return
		}
		if time.Since(time.Unix(0, last.Load())) < idle {
			b.afterIdle(last)
			return
		}
		b.churn.Store(0)
		b.waiting.Store(false)
		free := b.free
		if free == nil {
			free = debug.FreeOSMemory
		}
		free()
	})
}

// recordBudget counts the decoded records of one request against
// Limits.MaxRecordBytes and the server's byte budget (through the request's
// lease), so that a small body that decodes into millions of records
// cannot take gigabytes. Once either is spent it keeps the first error and
// refuses every later record: the request then fails whole.
// It is safe for concurrent use (the parts of a body decoded in parallel
// share it).
type recordBudget struct {
	mu   sync.Mutex
	l    *lease // guarded by mu
	max  int64
	used int64 // guarded by mu
	err  error // guarded by mu
}

// take counts r (held records are already held) or refuses it. A nil
// budget takes everything.
func (m *recordBudget) take(r *schema.Record, held int) bool {
	if m == nil {
		return true
	}
	n := recordSize(r)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return false
	}
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
	m.mu.Lock()
	defer m.mu.Unlock()
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
