package clickhouse

import (
	"sync"
	"time"
)

// Breaker states, as WriterStatus reports them.
const (
	BreakerClosed   = "closed"
	BreakerOpen     = "open"
	BreakerHalfOpen = "half-open"
)

// breaker is a circuit breaker around the ClickHouse writer: closed while
// calls succeed; open after `threshold` consecutive failures, refusing
// calls for `openFor`; then half-open, letting one probe through, whose
// outcome closes it or opens it again.
type breaker struct {
	mu        sync.Mutex
	state     string
	fails     int
	threshold int
	openFor   time.Duration
	openedAt  time.Time
	probing   bool
	now       func() time.Time
}

func newBreaker(threshold int, openFor time.Duration) *breaker {
	return &breaker{state: BreakerClosed, threshold: threshold, openFor: openFor, now: time.Now}
}

// allow reports whether a call may go out now.
func (b *breaker) allow() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch b.state {
	case BreakerOpen:
		if b.now().Sub(b.openedAt) < b.openFor {
			return false
		}
		b.state, b.probing = BreakerHalfOpen, true
		return true
	case BreakerHalfOpen:
		if b.probing {
			return false
		}
		b.probing = true
		return true
	}
	return true
}

// record takes the outcome of a call that allow let through. A call the
// server answered, even with a refusal, counts as a success: the breaker
// measures whether the server is reachable, not whether data is good.
func (b *breaker) record(ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.probing = false
	if ok {
		b.state, b.fails = BreakerClosed, 0
		return
	}
	b.fails++
	if b.state == BreakerHalfOpen || b.fails >= b.threshold {
		b.state, b.openedAt = BreakerOpen, b.now()
	}
}

// status reports the state, the consecutive failures and, when open, the
// time it will let a probe through.
func (b *breaker) status() (state string, fails int, retryAt time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state == BreakerOpen {
		retryAt = b.openedAt.Add(b.openFor)
	}
	return b.state, b.fails, retryAt
}
