package enrich

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// deadLetterOn makes one dead letter on st (Slack down) and returns its id.
func deadLetterOn(t *testing.T, h *harness) string {
	t.Helper()
	h.slack.fail = func(int, string) (int, string) { return 500, "" }
	h.svc.process(context.Background(), mustParse(t, "alertmanager_firing.json"))
	h.slack.fail = nil
	dls := h.deadLetters(t)
	if len(dls) != 1 {
		t.Fatalf("%d dead letters", len(dls))
	}
	return dls[0].ID
}

// TestParallelResendsDeliverOnce: ten resends of one dead letter at once,
// half through each of two services on the same store (two processes),
// with a Slack that takes its time: one post, the rest ErrResendInProgress
// or ErrNoDeadLetter.
func TestParallelResendsDeliverOnce(t *testing.T) {
	st := openStore(t)
	var posts atomic.Int32
	slow := func(c *Config, _ *fakeSlack) {
		c.MaxAttempts, c.BreakerFailures = 1, 10
		c.Post = func(ctx context.Context, _ *Message, _ Posted) (Posted, error) {
			posts.Add(1)
			time.Sleep(300 * time.Millisecond)
			return Posted{TS: "1.2", Channel: "C1"}, nil
		}
	}
	a := newHarness(t, &fakeAnalyzer{rep: knownReport()}, st, func(c *Config, f *fakeSlack) { c.MaxAttempts, c.BreakerFailures = 2, 10 })
	id := deadLetterOn(t, a)
	p1 := newHarness(t, &fakeAnalyzer{rep: knownReport()}, st, slow)
	p2 := newHarness(t, &fakeAnalyzer{rep: knownReport()}, st, slow)
	var wg sync.WaitGroup
	errs := make([]error, 10)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			svc := p1.svc
			if i%2 == 1 {
				svc = p2.svc
			}
			errs[i] = svc.Resend(context.Background(), id)
		}()
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case errors.Is(err, ErrResendInProgress), errors.Is(err, ErrNoDeadLetter):
		default:
			t.Errorf("resend: %v", err)
		}
	}
	if n := posts.Load(); n != 1 || ok != 1 {
		t.Errorf("%d posts to Slack, %d resends succeeded; want exactly one delivery", n, ok)
	}
	if err := p1.svc.Resend(context.Background(), id); !errors.Is(err, ErrNoDeadLetter) {
		t.Errorf("resend after delivery: %v, want ErrNoDeadLetter", err)
	}
}

// TestResendIsBoundedAndKeepsReason: a resend to a Slack answering 500
// makes ResendAttempts calls, then keeps the original reason and error,
// the resend's error beside them.
func TestResendIsBoundedAndKeepsReason(t *testing.T) {
	h := newHarness(t, &fakeAnalyzer{rep: knownReport()}, nil, func(c *Config, _ *fakeSlack) { c.MaxAttempts, c.BreakerFailures = 2, 2 })
	id := deadLetterOn(t, h)
	orig := h.deadLetters(t)[0]
	h.slack.fail = func(int, string) (int, string) { return 500, "" }
	before := len(h.slack.snapshot())
	if err := h.svc.Resend(context.Background(), id); err == nil {
		t.Fatal("resend to a failing Slack reported success")
	}
	if n := len(h.slack.snapshot()) - before; n == 0 || n > 3 {
		t.Errorf("%d Slack calls for one resend, want 1..3", n)
	}
	got := h.deadLetters(t)[0]
	if got.Reason != orig.Reason || got.Error != orig.Error || got.ResendError == "" {
		t.Errorf("after a failed resend: reason %q error %q resend_error %q; want the original kept (%q, %q)",
			got.Reason, got.Error, got.ResendError, orig.Reason, orig.Error)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	h.svc.Resend(ctx, id)
	if got := h.deadLetters(t)[0]; got.Error != orig.Error || strings.Contains(got.Error, "context canceled") {
		t.Errorf("interrupted resend replaced the error: %q", got.Error)
	}
}

// TestRetriesBoundedAcrossRestarts: breaker probes count as attempts, the
// count is journalled, and a restart past the budget dead-letters the
// alert instead of starting over.
func TestRetriesBoundedAcrossRestarts(t *testing.T) {
	h := newHarness(t, &fakeAnalyzer{rep: knownReport()}, nil, func(c *Config, _ *fakeSlack) {
		c.BreakerFailures, c.MaxAttempts = 2, 5
	})
	h.slack.fail = func(int, string) (int, string) { return 503, "" }
	h.svc.process(context.Background(), mustParse(t, "alertmanager_firing.json"))
	if n := len(h.slack.snapshot()); n != 5 {
		t.Errorf("%d Slack calls, want MaxAttempts=5 (breaker probes included)", n)
	}
	if dls := h.deadLetters(t); len(dls) != 1 || dls[0].Attempts != 5 {
		t.Fatalf("dead letters %+v", dls)
	}

	// A crash after 4 calls: the next start has one call left.
	st := openStore(t)
	stuck := make(chan struct{})
	defer close(stuck)
	var calls atomic.Int32
	crashed := newHarness(t, &fakeAnalyzer{rep: knownReport()}, st, func(c *Config, _ *fakeSlack) {
		c.Workers, c.MaxAttempts, c.BreakerFailures = 1, 4, 10
		c.Post = func(ctx context.Context, _ *Message, _ Posted) (Posted, error) {
			if calls.Add(1) < 4 {
				return Posted{}, errors.New("slack 503")
			}
			select { // the process "dies" during the fourth call
			case <-stuck:
			case <-ctx.Done():
			}
			return Posted{}, ctx.Err()
		}
	})
	if _, err := crashed.svc.Enqueue(mustParse(t, "alertmanager_firing.json")); err != nil {
		t.Fatal(err)
	}
	for calls.Load() < 4 {
		time.Sleep(5 * time.Millisecond)
	}
	next := newHarness(t, &fakeAnalyzer{rep: knownReport()}, st, func(c *Config, _ *fakeSlack) { c.MaxAttempts = 4 })
	next.slack.fail = func(int, string) (int, string) { return 503, "" }
	if n, err := next.svc.Resume(context.Background()); n != 0 || err != nil {
		t.Errorf("Resume = %d, %v; want the spent alert dead-lettered, not queued", n, err)
	}
	if len(next.slack.snapshot()) != 0 {
		t.Error("the restart called Slack again for an alert past its attempts")
	}
	dls := next.deadLetters(t)
	if len(dls) != 1 || dls[0].Attempts != 4 || !strings.Contains(dls[0].Error, "4 attempts") {
		t.Fatalf("dead letters after restart: %+v", dls)
	}
}
