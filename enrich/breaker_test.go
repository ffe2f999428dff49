package enrich

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/slack-go/slack"
)

func TestBreakerStates(t *testing.T) {
	clock := newFakeClock()
	var changes []bool
	b := newBreaker(2, 30*time.Second, clock.Now, func(open bool) { changes = append(changes, open) })
	b.failure()
	if ok, _, _ := b.allow(); !ok {
		t.Fatal("open after one failure of two")
	}
	b.failure()
	if ok, _, wait := b.allow(); ok || wait != 30*time.Second {
		t.Fatalf("after the threshold: ok %v wait %v, want refused for the cooldown", ok, wait)
	}
	clock.Sleep(context.Background(), 30*time.Second)
	if ok, probe, _ := b.allow(); !ok || !probe {
		t.Fatal("no probe after the cooldown")
	}
	if ok, _, _ := b.allow(); ok {
		t.Fatal("a second call went through while the probe is out")
	}
	b.failure() // the probe failed: open again for a full cooldown
	if ok, _, wait := b.allow(); ok || wait != 30*time.Second {
		t.Fatalf("failed probe: ok %v wait %v", ok, wait)
	}
	clock.Sleep(context.Background(), 30*time.Second)
	b.allow()
	b.success()
	if ok, probe, _ := b.allow(); !ok || probe || b.isOpen() {
		t.Fatal("not closed after a successful probe")
	}
	if fmt.Sprint(changes) != "[true false]" {
		t.Errorf("state changes %v", changes)
	}
}

func TestClassify(t *testing.T) {
	cases := []struct {
		err   error
		want  outcome
		after time.Duration
	}{
		{&slack.RateLimitedError{RetryAfter: 3 * time.Second}, outcomeRateLimit, 3 * time.Second},
		{slack.StatusCodeError{Code: 503}, outcomeRetry, 0},
		{slack.StatusCodeError{Code: 404}, outcomePermanent, 0},
		{slack.SlackErrorResponse{Err: "message_not_found"}, outcomeStale, 0},
		{slack.SlackErrorResponse{Err: "invalid_auth"}, outcomePermanent, 0},
		{slack.SlackErrorResponse{Err: "internal_error"}, outcomeRetry, 0},
		{fmt.Errorf("post: %w", context.DeadlineExceeded), outcomeRetry, 0},
		{&net.OpError{Op: "dial", Err: errors.New("connection refused")}, outcomeRetry, 0},
	}
	for _, c := range cases {
		if got, after := classify(c.err); got != c.want || after != c.after {
			t.Errorf("classify(%v) = %v, %v; want %v, %v", c.err, got, after, c.want, c.after)
		}
	}
}
