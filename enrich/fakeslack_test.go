package enrich

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	testToken   = "xoxb-1111-2222-SECRETtokenVALUE"
	testChannel = "#incidents"
	testWebhook = "/services/T0001/B0002/SECRETwebhookPATH"
)

// fakeSlack implements the parts of Slack used: chat.postMessage and
// chat.update of the Web API (form-encoded, token in the body), and an
// incoming webhook. fail, when set, decides a call's fate by its number
// (1-based): 0 answers normally, else it is the HTTP status to fail with.
type fakeSlack struct {
	srv   *httptest.Server
	clock *fakeClock

	mu       sync.Mutex
	calls    []slackCall
	messages map[string]string // ts -> text
	nextTS   int
	fail     func(n int, method string) (status int, retryAfter string)
	apiError string // a Slack error to answer with ok:false
}

type slackCall struct {
	method, ts, text, blocks string
	threadTS                 string // chat.postMessage in a thread
	status                   int
	at                       time.Time
}

func newFakeSlack(t *testing.T, clock *fakeClock) *fakeSlack {
	f := &fakeSlack{clock: clock, messages: map[string]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/chat.postMessage", f.api)
	mux.HandleFunc("POST /api/chat.update", f.api)
	mux.HandleFunc("POST "+testWebhook, f.webhook)
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeSlack) apiURL() string     { return f.srv.URL + "/api/" }
func (f *fakeSlack) webhookURL() string { return f.srv.URL + testWebhook }

// record notes a call and returns the status to fail with (0: none).
func (f *fakeSlack) record(w http.ResponseWriter, c slackCall) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.clock != nil {
		c.at = f.clock.Now()
	}
	if f.fail != nil {
		if st, ra := f.fail(len(f.calls)+1, c.method); st != 0 {
			c.status = st
			f.calls = append(f.calls, c)
			if ra != "" {
				w.Header().Set("Retry-After", ra)
			}
			w.WriteHeader(st)
			fmt.Fprint(w, "<html>upstream error</html>")
			return st
		}
	}
	c.status = 200
	f.calls = append(f.calls, c)
	return 0
}

func (f *fakeSlack) api(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", 400)
		return
	}
	method := strings.TrimPrefix(r.URL.Path, "/api/")
	c := slackCall{method: method, ts: r.PostForm.Get("ts"), text: r.PostForm.Get("text"), blocks: r.PostForm.Get("blocks"),
		threadTS: r.PostForm.Get("thread_ts")}
	if f.record(w, c) != 0 {
		return
	}
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case r.PostForm.Get("token") != testToken:
		enc.Encode(map[string]any{"ok": false, "error": "invalid_auth"})
	case f.apiError != "":
		enc.Encode(map[string]any{"ok": false, "error": f.apiError})
	case method == "chat.update":
		ts := r.PostForm.Get("ts")
		if _, ok := f.messages[ts]; !ok || r.PostForm.Get("channel") != "C0INCIDENT" {
			enc.Encode(map[string]any{"ok": false, "error": "message_not_found"})
			return
		}
		f.messages[ts] = c.text
		enc.Encode(map[string]any{"ok": true, "channel": "C0INCIDENT", "ts": ts, "text": c.text})
	default:
		ch := r.PostForm.Get("channel")
		if ch != testChannel && (c.threadTS == "" || ch != "C0INCIDENT") {
			enc.Encode(map[string]any{"ok": false, "error": "channel_not_found"})
			return
		}
		if _, ok := f.messages[c.threadTS]; c.threadTS != "" && !ok {
			enc.Encode(map[string]any{"ok": false, "error": "thread_not_found"})
			return
		}
		f.nextTS++
		ts := fmt.Sprintf("1764496800.%06d", f.nextTS)
		f.messages[ts] = c.text
		f.calls[len(f.calls)-1].ts = ts // the ts Slack gave the new message
		enc.Encode(map[string]any{"ok": true, "channel": "C0INCIDENT", "ts": ts, "message": map[string]any{"text": c.text}})
	}
}

func (f *fakeSlack) webhook(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Text   string          `json:"text"`
		Blocks json.RawMessage `json:"blocks"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body.Text == "" {
		w.WriteHeader(400)
		fmt.Fprint(w, "invalid_payload")
		return
	}
	if f.record(w, slackCall{method: "webhook", text: body.Text, blocks: string(body.Blocks)}) != 0 {
		return
	}
	fmt.Fprint(w, "ok")
}

func (f *fakeSlack) snapshot() []slackCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]slackCall(nil), f.calls...)
}

// okCalls are the calls Slack answered 200, by method.
func (f *fakeSlack) okCalls(method string) []slackCall {
	var out []slackCall
	for _, c := range f.snapshot() {
		if c.status == 200 && c.method == method {
			out = append(out, c)
		}
	}
	return out
}

// topLevel are the chat.postMessage calls Slack answered 200 outside a
// thread; replies are those in one.
func (f *fakeSlack) topLevel() (posts, replies []slackCall) {
	for _, c := range f.okCalls("chat.postMessage") {
		if c.threadTS == "" {
			posts = append(posts, c)
		} else {
			replies = append(replies, c)
		}
	}
	return posts, replies
}

// fakeClock is a clock that only moves when the code under test sleeps,
// so backoff, Retry-After and the breaker's cooldown are checked without
// waiting and without timing assertions.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

func newFakeClock() *fakeClock { return &fakeClock{now: testNow} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.sleeps = append(c.sleeps, d)
	return nil
}

func (c *fakeClock) slept() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}
