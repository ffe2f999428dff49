package enrich

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/store"
)

// failingDocs is a store whose writes fail.
type failingDocs struct{ store.Store }

func (failingDocs) PutDoc(context.Context, string, string, []byte) error {
	return errors.New("disk full")
}

// TestAlertNotKeptIsNotAccepted: an alert the store cannot keep gets 503
// (the notifier retries), never a 202 that a crash could turn into a loss.
func TestAlertNotKeptIsNotAccepted(t *testing.T) {
	h := newHarness(t, &fakeAnalyzer{rep: knownReport()}, failingDocs{openStore(t)}, func(c *Config, _ *fakeSlack) { c.HookToken = "" })
	rec := hookCall(h.svc.Hooks(), "POST", "/hooks/alertmanager", "", string(readFixture(t, "alertmanager_firing.json")))
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" {
		t.Errorf("alert the store cannot keep: %d %s, want 503 with Retry-After", rec.Code, rec.Body.String())
	}
}

// TestResumeAfterCrash: what one service accepted and never settled (its
// process died) is delivered by the next one on Resume; what its queue
// cannot take becomes a dead letter; nothing is lost.
func TestResumeAfterCrash(t *testing.T) {
	st := openStore(t)
	stuck := make(chan struct{})
	crashed := newHarness(t, &fakeAnalyzer{rep: knownReport()}, st, func(c *Config, _ *fakeSlack) {
		c.Workers, c.QueueSize = 1, 8
		c.Post = func(ctx context.Context, _ *Message, _ Posted) (Posted, error) {
			select { // Slack hangs; the process "dies" meanwhile
			case <-stuck:
			case <-ctx.Done():
			}
			return Posted{}, ctx.Err()
		}
	})
	am := string(readFixture(t, "alertmanager_firing.json"))
	for i := range 4 {
		g, err := ParseAlertmanager([]byte(strings.Replace(am, `"groupKey": "{}`, `"groupKey": "{`+strings.Repeat("x", i)+`}`, 1)), ParseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if ok, err := crashed.svc.Enqueue(g); !ok || err != nil {
			t.Fatalf("enqueue %d: %v %v", i, ok, err)
		}
	}
	// A new process on the same store, with a queue of 2: two resume, two
	// are dead-lettered.
	next := newHarness(t, &fakeAnalyzer{rep: knownReport()}, st, func(c *Config, _ *fakeSlack) { c.Workers, c.QueueSize = 1, 2 })
	an := next.svc
	n, err := an.Resume(context.Background())
	if err != nil || n < 1 {
		t.Fatalf("Resume = %d, %v", n, err)
	}
	if err := an.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	posted := len(next.slack.okCalls("chat.postMessage"))
	dls := next.deadLetters(t)
	if posted != n || posted+len(dls) != 4 {
		t.Errorf("%d resumed, %d posted, %d dead letters; want all 4 alerts accounted for", n, posted, len(dls))
	}
	for _, dl := range dls {
		if dl.Reason != "restart" {
			t.Errorf("dead letter reason %q, want restart", dl.Reason)
		}
	}
	// Settled: a third start has nothing left to resume.
	third := newHarness(t, &fakeAnalyzer{rep: knownReport()}, st, nil)
	if n, err := third.svc.Resume(context.Background()); n != 0 || err != nil {
		t.Errorf("third start resumed %d (%v), want 0: settled alerts stay off the journal", n, err)
	}
	close(stuck)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = crashed.svc.Close(ctx)
}

// TestResendDeadLetter: a dead letter can be resent; delivered, it leaves
// the list; a second resend is ErrNoDeadLetter.
func TestResendDeadLetter(t *testing.T) {
	h := newHarness(t, &fakeAnalyzer{rep: knownReport()}, nil, func(c *Config, _ *fakeSlack) { c.MaxAttempts, c.BreakerFailures = 2, 10 })
	down := true
	h.slack.fail = func(int, string) (int, string) {
		if down {
			return 500, ""
		}
		return 0, ""
	}
	h.svc.process(context.Background(), mustParse(t, "alertmanager_firing.json"))
	dls := h.deadLetters(t)
	if len(dls) != 1 {
		t.Fatalf("%d dead letters", len(dls))
	}
	if err := h.svc.Resend(context.Background(), dls[0].ID); err == nil {
		t.Fatal("resend while Slack is down reported success")
	}
	if again := h.deadLetters(t); len(again) != 1 || again[0].Attempts <= dls[0].Attempts {
		t.Errorf("failed resend: %+v, want the letter kept with more attempts", again)
	}
	down = false
	if err := h.svc.Resend(context.Background(), dls[0].ID); err != nil {
		t.Fatalf("resend: %v", err)
	}
	if n := len(h.slack.okCalls("chat.postMessage")); n != 1 {
		t.Errorf("%d messages posted, want 1", n)
	}
	if left := h.deadLetters(t); len(left) != 0 {
		t.Errorf("resent letter still listed: %+v", left)
	}
	if err := h.svc.Resend(context.Background(), dls[0].ID); !errors.Is(err, ErrNoDeadLetter) {
		t.Errorf("second resend: %v, want ErrNoDeadLetter", err)
	}
	if list, err := ListDeadLetters(context.Background(), h.st); err != nil || len(list) != 0 {
		t.Errorf("ListDeadLetters = %d, %v", len(list), err)
	}
}
