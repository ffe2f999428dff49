package ingest

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestReturnMemoryWhenIdle: memory goes back to the OS once no body has
// been held for the idle time after a burst, and not while requests keep
// coming one after another (which used to cost a forced collection and
// the page faults of taking the memory back after every request).
func TestReturnMemoryWhenIdle(t *testing.T) {
	var frees atomic.Int32
	b := &byteBudget{max: 1 << 30, idle: 150 * time.Millisecond, free: func() { frees.Add(1) }}
	var last atomic.Int64
	request := func() {
		l := &lease{b: b}
		if err := l.grow(bigBody); err != nil {
			t.Fatal(err)
		}
		l.release()
		b.returnMemory(&last)
	}
	for range 10 { // steady: a request every 50 ms
		request()
		time.Sleep(50 * time.Millisecond)
	}
	if n := frees.Load(); n != 0 {
		t.Errorf("memory was returned %d times under steady load, want 0", n)
	}
	time.Sleep(400 * time.Millisecond)
	if n := frees.Load(); n != 1 {
		t.Errorf("memory was returned %d times after the load stopped, want once", n)
	}
	time.Sleep(300 * time.Millisecond)
	if n := frees.Load(); n != 1 {
		t.Errorf("memory was returned %d times while idle, want once", n)
	}
}
