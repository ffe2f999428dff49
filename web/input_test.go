package web

import (
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestParseIncidentQuery(t *testing.T) {
	now := fixtureNow
	tests := []struct {
		q          string
		from, to   time.Time
		since, svc string
		top        int
		bad        bool
	}{
		{q: "", from: now.Add(-30 * time.Minute), to: now, since: "30m"},
		{q: "since=15m", from: now.Add(-15 * time.Minute), to: now, since: "15m"},
		{q: "since=2d&service=checkout&top=5", from: now.Add(-48 * time.Hour), to: now, since: "2d", svc: "checkout", top: 5},
		{q: "from=2026-11-30T03:00:00Z&to=2026-11-30T04:00:00Z", from: now.Add(-90 * time.Minute), to: now.Add(-30 * time.Minute)},
		{q: "from=2026-11-30T05:00:00%2B02:00", from: now.Add(-90 * time.Minute), to: now},
		{q: "from=2026-11-30T03:00&to=2026-11-30T04:00", from: now.Add(-90 * time.Minute), to: now.Add(-30 * time.Minute)},
		{q: "since=0s", bad: true},
		{q: "since=1h&to=2026-11-30T04:00:00Z", bad: true},
		{q: "to=2026-11-30T04:00:00Z", bad: true},
		{q: "from=yesterday", bad: true},
		{q: "since=8d", bad: true},
		{q: "top=100", from: now.Add(-30 * time.Minute), to: now, since: "30m", top: 100},
		{q: "top=0", bad: true},
		{q: "top=101", bad: true},
		{q: "top=abc", bad: true},
		{q: "service=a%00b", bad: true},
		{q: "service=%ff%fe", bad: true},
	}
	for _, tt := range tests {
		v, _ := url.ParseQuery(tt.q)
		in, err := parseIncidentQuery(v, now, 7*24*time.Hour)
		if tt.bad {
			if !errors.Is(err, ErrBadInput) {
				t.Errorf("%q: err = %v, want ErrBadInput", tt.q, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tt.q, err)
			continue
		}
		q := in.Query
		if !q.From.Equal(tt.from) || !q.To.Equal(tt.to) || in.Since != tt.since || q.Service != tt.svc || q.Top != tt.top {
			t.Errorf("%q: got %v..%v since=%q svc=%q top=%d", tt.q, q.From, q.To, in.Since, q.Service, q.Top)
		}
	}
}

func TestFmtDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		10 * time.Second: "10s", 90 * time.Second: "1m30s", time.Hour: "1h", 15 * time.Minute: "15m",
		150 * time.Minute: "2h30m", 7 * 24 * time.Hour: "7d",
	} {
		if got := fmtDuration(d); got != want {
			t.Errorf("fmtDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestParseIDs(t *testing.T) {
	if id, err := parseTraceID("4BF92F35-77B3-4DA6-A3CE-929D0E0E4736"); err != nil || id != fixtureTrace {
		t.Errorf("uuid form: %q %v", id, err)
	}
	for _, bad := range []string{"", "xyz", "0000", "<script>", "\xff\xfe"} {
		if _, err := parseTraceID(bad); !errors.Is(err, ErrBadInput) {
			t.Errorf("parseTraceID(%q) = %v", bad, err)
		}
	}
	for _, bad := range []string{"", "a/b", "a b", "<x>", string(make([]byte, 200))} {
		if _, err := parseRunbookID(bad); !errors.Is(err, ErrBadInput) {
			t.Errorf("parseRunbookID(%q) = %v", bad, err)
		}
	}
}

// TestSinceOverflowIsRefused: a since that overflows a time.Duration was a
// 25-minute window; now it is a 400 that names the longest duration.
func TestSinceOverflowIsRefused(t *testing.T) {
	h := newTestHandler(t, Config{}, newFixtureBackend())
	for _, since := range []string{"213504d", "106752d", "9999999h", "99999999999999999999h"} {
		rec := get(h, "/api/v1/incident?since="+since)
		if rec.Code != 400 || !strings.Contains(rec.Body.String(), "too long") {
			t.Errorf("since=%s: %d %s, want 400 saying too long", since, rec.Code, rec.Body.String())
		}
	}
	if rec := get(h, "/api/v1/incident?since=1d12h"); rec.Code != 200 {
		t.Errorf("since=1d12h: %d %s", rec.Code, rec.Body.String())
	}
}
