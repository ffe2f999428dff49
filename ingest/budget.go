package ingest

import (
	"fmt"
	"runtime/debug"
	"sync/atomic"
	"time"
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
