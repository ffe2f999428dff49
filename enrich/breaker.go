package enrich

import (
	"sync"
	"time"
)

// breakerState is a circuit breaker's state.
type breakerState int

const (
	breakerClosed breakerState = iota
	breakerOpen
	breakerHalfOpen
)

// breaker is a circuit breaker around Slack: after threshold consecutive
// failures it opens and refuses calls for cooldown, then lets one probe
// through (half-open); the probe's success closes it, its failure opens it
// again. It is safe for concurrent use.
type breaker struct {
	threshold int
	cooldown  time.Duration
	now       func() time.Time
	onChange  func(open bool)

	mu       sync.Mutex
	state    breakerState
	failures int
	openedAt time.Time
	probing  bool
}

func newBreaker(threshold int, cooldown time.Duration, now func() time.Time, onChange func(bool)) *breaker {
	return &breaker{threshold: threshold, cooldown: cooldown, now: now, onChange: onChange}
}

// allow reports whether a call may go out now and whether it is the probe
// of a half-open breaker; when not, wait is how long until it may.
func (b *breaker) allow() (ok, probe bool, wait time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch b.state {
	case breakerClosed:
		return true, false, 0
	case breakerOpen:
		if left := b.cooldown - b.now().Sub(b.openedAt); left > 0 {
			return false, false, left
		}
		b.state, b.probing = breakerHalfOpen, true
		return true, true, 0
	default: // half-open: one probe at a time
		if b.probing {
			return false, false, max(b.cooldown/10, time.Millisecond)
		}
		b.probing = true
		return true, true, 0
	}
}

// success records a call Slack answered (even with a refusal).
func (b *breaker) success() {
	b.mu.Lock()
	defer b.mu.Unlock()
	was := b.state
	b.state, b.failures, b.probing = breakerClosed, 0, false
	if was != breakerClosed && b.onChange != nil {
		b.onChange(false)
	}
}

// failure records a call that did not reach a working Slack.
func (b *breaker) failure() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.failures++
	b.probing = false
	if b.state == breakerHalfOpen || (b.state == breakerClosed && b.failures >= b.threshold) {
		opened := b.state == breakerClosed
		b.state, b.openedAt = breakerOpen, b.now()
		if opened && b.onChange != nil {
			b.onChange(true)
		}
	}
}

// release gives back a probe whose call was abandoned (shutdown) without
// judging Slack either way.
func (b *breaker) release() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.probing = false
}

// isOpen reports whether the breaker currently refuses calls.
func (b *breaker) isOpen() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.state != breakerClosed
}
