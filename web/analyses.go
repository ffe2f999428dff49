package web

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"time"
)

// errBusy is an analysis refused because the running ones and the queue
// are full; it maps to 503 with Retry-After.
var errBusy = errors.New("busy")

// busyRetryAfter is what a refused request is told to wait.
const busyRetryAfter = 5 * time.Second

// analysisPool bounds the analyses, incidents and traces alike: at most
// `slots` run at once (one analysis of a large window, or of a trace of
// 100 000 spans, takes hundreds of MB), at most `queue` more wait for a
// slot, and past that a request is refused with errBusy. Requests for the
// same key (an IncidentQuery, a traceKey) share one analysis (a flight); a flight is
// cancelled when the last request waiting for it leaves, so a client that
// hangs up does not leave work behind.
type analysisPool struct {
	slots chan struct{}
	queue int

	mu      sync.Mutex
	waiting int // flights waiting for a slot
	flights map[any]*flight
}

type flight struct {
	done    chan struct{}
	rep     any
	err     error
	waiters int
	cancel  context.CancelFunc
}

func newAnalysisPool(slots, queue int) *analysisPool {
	return &analysisPool{slots: make(chan struct{}, slots), queue: queue, flights: map[any]*flight{}}
}

// do returns run's result for q, joining a flight for the same q when one
// is under way. run gets a context that ends at timeout or when every
// request waiting for it has left; ctx is this request's.
func (p *analysisPool) do(ctx context.Context, q any, timeout time.Duration,
	run func(context.Context) (any, error)) (any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p.mu.Lock()
	f := p.flights[q]
	if f == nil {
		if len(p.slots) == cap(p.slots) && p.waiting >= p.queue {
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
func (p *analysisPool) leave(q any, f *flight) {
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
func (p *analysisPool) fly(ctx context.Context, q any, f *flight, run func(context.Context) (any, error)) {
	defer close(f.done)
	defer f.cancel()
	select {
	case p.slots <- struct{}{}:
		p.mu.Lock()
		p.waiting--
		p.mu.Unlock()
	case <-ctx.Done():
		p.mu.Lock()
		p.waiting--
		p.mu.Unlock()
		f.err = ctx.Err()
		return
	}
	defer func() { <-p.slots }()
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
