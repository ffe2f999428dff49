package web

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"time"
)

// errBusy is an analysis refused because the running ones and the queue
// are full; it maps to 503 with Retry-After.
var errBusy = errors.New("busy")

// busyRetryAfter is what a refused request is told to wait.
const busyRetryAfter = 5 * time.Second

// IdleRelease is how long a Pool stays idle (nothing running, nothing
// waiting) before it returns the memory of the analyses to the system.
const IdleRelease = 2 * time.Second

// Pool is the one budget of the analyses of a process, incidents and
// traces alike, whoever asks: pages, the API, /mcp and the alert hooks
// (Wait). At most `slots` run at once (one analysis of a large window, or
// of a trace of 100 000 spans, takes hundreds of MB), at most `queue`
// more requests wait for a slot, and past that a request is refused with
// errBusy. Requests for the same key (an IncidentQuery, a traceKey) share
// one analysis (a flight); a flight is cancelled when the last request
// waiting for it leaves, so a client that hangs up does not leave work
// behind.
//
// When the last analysis ends and nothing waits, the pool returns the
// memory the analyses took to the system after IdleRelease (a collection
// and debug.FreeOSMemory): the runtime alone keeps it for minutes, and an
// idle server would hold the peak of its busiest minute.
type Pool struct {
	slots chan struct{}
	queue int

	mu      sync.Mutex
	waiting int // flights waiting for a slot
	running int // flights holding a slot
	gen     uint64
	flights map[any]*flight

	idleAfter time.Duration
	release   func() // called once the pool has been idle for idleAfter; nil: never
	collect   func() // called when an analysis ends while others run or wait
}

type flight struct {
	done    chan struct{}
	rep     any
	err     error
	waiters int
	cancel  context.CancelFunc
}

// NewPool returns a pool of slots analyses at once (at least 1) and queue
// more waiting (negative: none; 0 is none too).
func NewPool(slots, queue int) *Pool {
	return &Pool{slots: make(chan struct{}, max(slots, 1)), queue: max(queue, 0), flights: map[any]*flight{},
		idleAfter: IdleRelease, release: releaseMemory, collect: runtime.GC}
}

// releaseMemory returns the heap the analyses left to the system. Two
// collections: the first moves the sync.Pools' buffers (decoded blocks)
// to their victim caches, the second (FreeOSMemory's) frees them.
func releaseMemory() {
	runtime.GC()
	debug.FreeOSMemory()
}

// Wait runs run in a slot of the pool, waiting for one however many wait
// already: for work that is queued elsewhere and must not be refused (an
// alert's analysis, which its hook accepted with 202). It is counted among
// the waiting, so that pages and the API see the queue it makes. ctx
// bounds the wait and the run, timeout too (0: none).
func (p *Pool) Wait(ctx context.Context, timeout time.Duration, run func(context.Context) error) error {
	if timeout <= 0 {
		timeout = 1<<63 - 1
	}
	_, err := p.start(ctx, &poolJob{}, timeout, false, func(c context.Context) (any, error) { return nil, run(c) })
	if errors.Is(err, errPanic) {
		return fmt.Errorf("the analysis failed: %w", err)
	}
	return err
}

// do returns run's result for q, joining a flight for the same q when one
// is under way. run gets a context that ends at timeout or when every
// request waiting for it has left; ctx is this request's.
func (p *Pool) do(ctx context.Context, q any, timeout time.Duration,
	run func(context.Context) (any, error)) (any, error) {
	return p.start(ctx, q, timeout, true, run)
}

// start is do, refusing past the queue only when refuse is set.
func (p *Pool) start(ctx context.Context, q any, timeout time.Duration, refuse bool,
	run func(context.Context) (any, error)) (any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p.mu.Lock()
	f := p.flights[q]
	if f == nil {
		if refuse && len(p.slots) == cap(p.slots) && p.waiting >= p.queue {
			p.mu.Unlock()
			return nil, errBusy
		}
		fctx, cancel := context.WithTimeout(context.Background(), timeout)
		f = &flight{done: make(chan struct{}), cancel: cancel}
		p.flights[q] = f
		p.waiting++
		go p.fly(fctx, q, f, run)
	}
	f.waiters++
	p.mu.Unlock()
	select {
	case <-f.done:
		p.leave(q, f)
		return f.rep, f.err
	case <-ctx.Done():
		p.leave(q, f)
		return nil, ctx.Err()
	}
}

// leave drops a waiter; the last one out cancels the flight if it is still
// running and lets the next request for q start afresh.
func (p *Pool) leave(q any, f *flight) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f.waiters--
	if f.waiters > 0 {
		return
	}
	f.cancel()
	if p.flights[q] == f {
		delete(p.flights, q)
	}
}

// fly waits for a slot (or for its waiters to leave), runs the analysis
// and publishes the result. A panic becomes errPanic: no middleware
// recovers this goroutine.
func (p *Pool) fly(ctx context.Context, q any, f *flight, run func(context.Context) (any, error)) {
	defer close(f.done)
	defer f.cancel()
	select {
	case p.slots <- struct{}{}:
		p.mu.Lock()
		p.waiting--
		p.running++
		p.gen++
		p.mu.Unlock()
	case <-ctx.Done():
		p.mu.Lock()
		p.waiting--
		p.mu.Unlock()
		f.err = ctx.Err()
		return
	}
	defer p.landed()
	defer func() {
		if v := recover(); v != nil {
			f.rep, f.err = nil, fmt.Errorf("%w: %v\n%s", errPanic, v, debug.Stack())
		}
	}()
	f.rep, f.err = run(ctx)
	p.mu.Lock()
	if p.flights[q] == f {
		delete(p.flights, q) // done: later requests use the cache or run anew
	}
	p.mu.Unlock()
}

// landed gives the slot back and collects what the analysis left (in the
// background: the answer does not wait), so that the next analysis does
// not grow the heap on top of it: the collector's goal is a multiple of
// the heap found live, and found with a finished analysis's records it
// lets the next ones take that much again. When it was the last analysis
// and nothing waits, it arms the release of memory: if after idleAfter
// the pool is still idle (no analysis started meanwhile), release runs.
func (p *Pool) landed() {
	<-p.slots
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running--
	if p.release == nil {
		return
	}
	if p.running > 0 || p.waiting > 0 {
		go p.collect()
		return
	}
	gen := p.gen
	time.AfterFunc(p.idleAfter, func() {
		p.mu.Lock()
		idle := p.gen == gen && p.running == 0 && p.waiting == 0
		p.mu.Unlock()
		if idle {
			p.release()
		}
	})
}
