package web

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"
)

// TestPoolAlertWaitsForWebSlot: one pool for the pages and the alert
// hooks. An alert's analysis (Wait) does not run while a page's analysis
// holds the only slot, is not refused though the queue is full, counts in
// that queue (the next page's request gets 503), and runs once the slot is
// free.
func TestPoolAlertWaitsForWebSlot(t *testing.T) {
	pool := NewPool(1, 1)
	block := make(chan struct{})
	fb := &mcpGateBackend{fakeBackend: newFixtureBackend(), block: block, started: make(chan struct{}, 1)}
	h := newTestHandler(t, Config{Pool: pool, CacheTTL: -1}, fb)
	page := make(chan int, 1)
	go func() { page <- get(h, "/api/v1/incident?since=1h").Code }()
	<-fb.started // the page's analysis holds the slot

	ran := make(chan struct{})
	alert := make(chan error, 1)
	go func() {
		alert <- pool.Wait(context.Background(), time.Minute, func(context.Context) error { close(ran); return nil })
	}()
	waitFor(t, "the alert to wait", func() bool { pool.mu.Lock(); defer pool.mu.Unlock(); return pool.waiting == 1 })
	select {
	case <-ran:
		t.Fatal("the alert's analysis ran while a page's held the only slot")
	case <-time.After(50 * time.Millisecond):
	}
	if code := get(h, "/api/v1/incident?since=2h").Code; code != http.StatusServiceUnavailable {
		t.Errorf("a page's analysis while the slot is taken and the alert waits in the queue of 1: %d, want 503", code)
	}
	// A second alert is not refused either: it waits too.
	second := make(chan error, 1)
	go func() {
		second <- pool.Wait(context.Background(), time.Minute, func(context.Context) error { return nil })
	}()

	close(block)
	if code := <-page; code != http.StatusOK {
		t.Errorf("the page's analysis: %d", code)
	}
	for _, c := range []chan error{alert, second} {
		select {
		case err := <-c:
			if err != nil {
				t.Errorf("an alert's analysis after the slot was freed: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("an alert's analysis did not run once the slot was free")
		}
	}
}

// TestPoolWaitEndsWithItsContext: an alert given up (its timeout, a
// shutdown) leaves the queue without running.
func TestPoolWaitEndsWithItsContext(t *testing.T) {
	pool := NewPool(1, 0)
	hold, release := make(chan struct{}), make(chan struct{})
	go pool.Wait(context.Background(), 0, func(context.Context) error { close(hold); <-release; return nil })
	<-hold
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	ran := false
	err := pool.Wait(ctx, 0, func(context.Context) error { ran = true; return nil })
	if !errors.Is(err, context.DeadlineExceeded) || ran {
		t.Errorf("Wait past its context: %v (ran %v), want the deadline and no run", err, ran)
	}
	close(release)
	waitFor(t, "the pool to empty", func() bool { pool.mu.Lock(); defer pool.mu.Unlock(); return pool.waiting == 0 && pool.running == 0 })
}

// TestPoolReleasesMemoryWhenIdle: the memory of the analyses is returned
// once the pool is idle for idleAfter, once per idle spell: not while an
// analysis runs or waits, and not when another starts within idleAfter.
func TestPoolReleasesMemoryWhenIdle(t *testing.T) {
	pool := NewPool(2, 2)
	var released atomic.Int32
	pool.idleAfter = 300 * time.Millisecond
	pool.release = func() { released.Add(1) }
	run := func() {
		if err := pool.Wait(context.Background(), 0, func(context.Context) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	hold, release := make(chan struct{}), make(chan struct{})
	go pool.Wait(context.Background(), 0, func(context.Context) error { close(hold); <-release; return nil })
	<-hold
	run() // ends while the other runs: not idle
	time.Sleep(2 * pool.idleAfter)
	if n := released.Load(); n != 0 {
		t.Fatalf("memory released %d times while an analysis ran", n)
	}
	close(release)
	waitFor(t, "the memory released", func() bool { return released.Load() == 1 })
	// Analyses closer together than idleAfter: one release after the last.
	for range 3 {
		run()
		time.Sleep(pool.idleAfter / 10)
	}
	time.Sleep(2 * pool.idleAfter)
	if n := released.Load(); n != 2 {
		t.Errorf("memory released %d times after a second busy spell, want 2 in all", n)
	}
}
