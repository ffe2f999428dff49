package enrich

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// checkThreaded checks one top-level message, one edit of it and one reply
// in its thread carrying the resolution.
func checkThreaded(t *testing.T, f *fakeSlack) {
	t.Helper()
	tops, replies := f.topLevel()
	ups := f.okCalls("chat.update")
	if len(tops) != 1 || len(ups) != 1 || len(replies) != 1 {
		t.Fatalf("%d posts, %d updates, %d replies; want 1 of each", len(tops), len(ups), len(replies))
	}
	if ups[0].ts != tops[0].ts || replies[0].threadTS != tops[0].ts {
		t.Errorf("update of %s, reply in thread %s; want both on %s", ups[0].ts, replies[0].threadTS, tops[0].ts)
	}
	if !strings.HasPrefix(replies[0].text, "[RESOLVED]") {
		t.Errorf("reply %q, want the resolution", replies[0].text)
	}
}

func TestChangeRepliesInThread(t *testing.T) {
	h := newHarness(t, &fakeAnalyzer{rep: knownReport()}, nil, nil)
	ctx := context.Background()
	h.svc.process(ctx, mustParse(t, "alertmanager_firing.json"))
	h.svc.process(ctx, mustParse(t, "alertmanager_resolved.json"))
	h.svc.process(ctx, mustParse(t, "alertmanager_resolved.json")) // Alertmanager retrying: no second reply
	checkThreaded(t, h.slack)
	if got := h.metric(t, "faultline_enrich_messages_delivered_total", "action", "replied"); got != 1 {
		t.Errorf("replied metric %v", got)
	}
}

func TestThreadReplyRetriedOnce(t *testing.T) {
	h := newHarness(t, &fakeAnalyzer{rep: knownReport()}, nil, nil)
	h.slack.fail = func(n int, _ string) (int, string) {
		if n == 3 || n == 4 { // the reply's first two calls
			return 503, ""
		}
		return 0, ""
	}
	ctx := context.Background()
	h.svc.process(ctx, mustParse(t, "alertmanager_firing.json"))
	h.svc.process(ctx, mustParse(t, "alertmanager_resolved.json"))
	checkThreaded(t, h.slack)
	if n := len(h.slack.snapshot()); n != 5 {
		t.Errorf("%d Slack calls, want post, update, two failed replies and one reply", n)
	}
}

func TestThreadSurvivesRestart(t *testing.T) {
	st := openStore(t)
	ctx := context.Background()
	h1 := newHarness(t, &fakeAnalyzer{rep: knownReport()}, st, nil)
	h1.svc.process(ctx, mustParse(t, "alertmanager_firing.json"))
	h1.svc.Close(ctx)
	// A new Service on the same store, talking to the same Slack.
	h2 := newHarness(t, &fakeAnalyzer{rep: knownReport()}, st, func(c *Config, _ *fakeSlack) {
		c.APIURL = h1.slack.apiURL()
	})
	h2.svc.process(ctx, mustParse(t, "alertmanager_resolved.json"))
	checkThreaded(t, h1.slack)
}

// A restart between the update and its reply sends the reply only.
func TestReplyDueAfterRestart(t *testing.T) {
	st := openStore(t)
	ctx := context.Background()
	h1 := newHarness(t, &fakeAnalyzer{rep: knownReport()}, st, nil)
	resolved := mustParse(t, "alertmanager_resolved.json")
	h1.svc.process(ctx, mustParse(t, "alertmanager_firing.json"))
	h1.slack.fail = func(_ int, method string) (int, string) {
		if method == "chat.postMessage" {
			return 503, "" // the reply never gets through before the "crash"
		}
		return 0, ""
	}
	h1.svc.process(ctx, resolved)
	h1.svc.Close(ctx)
	// Undo the dead letter of the reply, as if the process died first.
	gs := h1.svc.loadState(ctx, resolved.ID)
	gs.ReplyDue = true
	doc, _ := json.Marshal(gs)
	if err := st.PutDoc(ctx, stateKind, resolved.ID, doc); err != nil {
		t.Fatal(err)
	}
	h1.slack.fail = nil
	h2 := newHarness(t, &fakeAnalyzer{rep: knownReport()}, st, func(c *Config, _ *fakeSlack) {
		c.APIURL = h1.slack.apiURL()
	})
	h2.svc.process(ctx, resolved)
	checkThreaded(t, h1.slack)
	if gs := h2.svc.loadState(ctx, resolved.ID); gs == nil || gs.ReplyDue {
		t.Errorf("state after the reply: %+v", gs)
	}
	h2.svc.process(ctx, resolved)
	if _, replies := h1.slack.topLevel(); len(replies) != 1 {
		t.Errorf("%d replies after a resend, want 1", len(replies))
	}
}

func TestReplyDeadLetterResentInThread(t *testing.T) {
	h := newHarness(t, &fakeAnalyzer{rep: knownReport()}, nil, func(c *Config, _ *fakeSlack) { c.MaxAttempts, c.BreakerFailures = 4, 10 })
	down := false
	h.slack.fail = func(_ int, method string) (int, string) {
		if down && method == "chat.postMessage" {
			return 500, ""
		}
		return 0, ""
	}
	ctx := context.Background()
	h.svc.process(ctx, mustParse(t, "alertmanager_firing.json"))
	down = true
	h.svc.process(ctx, mustParse(t, "alertmanager_resolved.json"))
	dls := h.deadLetters(t)
	if len(dls) != 1 || dls[0].Thread == nil {
		t.Fatalf("dead letters %+v, want the reply", dls)
	}
	down = false
	if err := h.svc.Resend(ctx, dls[0].ID); err != nil {
		t.Fatalf("resend: %v", err)
	}
	checkThreaded(t, h.slack)
	// The group's message is still the first one: a later change edits it.
	h.svc.process(ctx, mustParse(t, "alertmanager_firing.json"))
	if ups := h.slack.okCalls("chat.update"); len(ups) != 2 {
		t.Errorf("%d updates, want the first message edited again", len(ups))
	}
}
