package web

import (
	"context"
	"net/url"
	"sync"
	"time"
)

// StoreBounds is a Backend that says since when its store holds records:
// the default window then leaves a baseline on a store that holds little
// history (DefaultSince). Without it the default is defaultWindow.
type StoreBounds interface {
	// Bounds is the time of the oldest and newest record held; zero
	// times when the store is empty.
	Bounds(ctx context.Context) (first, last time.Time, err error)
}

// minDefaultWindow is the shortest default window: on a store that holds
// minutes of records, a shorter one would show little, and the thin
// baseline is said on the page.
const minDefaultWindow = 5 * time.Minute

// Bounds are asked at most every boundsTTL (a store's first record moves
// only with retention), and given boundsTimeout to answer.
const (
	boundsTTL     = time.Minute
	boundsTimeout = 5 * time.Second
)

// DefaultSince is the window, ending now, when a request names none (the
// incident and traces pages', analyze incident's), given the times of the
// store's first and last records: the last defaultWindow, unless the
// store's first record is less than twice that before now. Then the window
// starts in the middle of what the store holds (whole minutes), so that
// the older half is its baseline, yet reaches back to the last record and
// lasts at least minDefaultWindow, at most defaultWindow.
//
// Why: rootcause compares the window with the stretch before it, and
// calls a baseline thin when it holds fewer minutes of data than the
// window (its evidence then weighs as weak). A store that holds 30 minutes
// (the demo's, or one just started) under a 30-minute window has no
// baseline left, so the page ranked on nothing to compare with and named
// an onset 18 minutes before the fault. The newer half is the one an
// incident that is going on is in, and the older half is at least as long
// as the data in the window: the least that is not thin. short says the
// window is shorter than defaultWindow for this reason.
func DefaultSince(first, last, now time.Time) (d time.Duration, short bool) {
	held := now.Sub(first)
	if first.IsZero() || held <= 0 || held >= 2*defaultWindow {
		return defaultWindow, false
	}
	if last.After(now) {
		last = now
	}
	if last.Before(first) {
		last = first
	}
	mid := first.Add(last.Sub(first) / 2)
	d = max(now.Sub(mid).Truncate(time.Minute), ceilMinute(now.Sub(last)), minDefaultWindow)
	return min(d, defaultWindow), d < defaultWindow
}

// ceilMinute rounds d up to whole minutes.
func ceilMinute(d time.Duration) time.Duration {
	if t := d.Truncate(time.Minute); t < d {
		return t + time.Minute
	}
	return d
}

// boundsCache keeps the store's bounds for boundsTTL.
type boundsCache struct {
	mu          sync.Mutex
	at          time.Time
	first, last time.Time
}

// storeBounds is the time of the store's first and last records, zero
// when the backend cannot say or fails to (the default window is then
// defaultWindow).
func (s *server) storeBounds(ctx context.Context) (first, last time.Time) {
	sb, ok := s.backend.(StoreBounds)
	if !ok {
		return first, last
	}
	now := s.cfg.Now()
	s.bounds.mu.Lock()
	defer s.bounds.mu.Unlock()
	if !s.bounds.at.IsZero() && now.Sub(s.bounds.at) < boundsTTL {
		return s.bounds.first, s.bounds.last
	}
	ctx, cancel := context.WithTimeout(ctx, boundsTimeout)
	defer cancel()
	first, last, err := sb.Bounds(ctx)
	if err != nil {
		s.log.Warn("cannot read the store's time range for the default window", "err", err)
		return time.Time{}, time.Time{}
	}
	s.bounds.at, s.bounds.first, s.bounds.last = now, first, last
	return first, last
}

// newestWindow links the default window as it would be had now been the
// store's last record, for a page whose window holds nothing because the
// store's records end before it (ingest stopped; a demo run an hour ago);
// "" when the store is empty or reaches into the window.
func (s *server) newestWindow(ctx context.Context, w IncidentQuery) (href, label string) {
	first, last := s.storeBounds(ctx)
	if last.IsZero() || !last.Before(w.From) {
		return "", ""
	}
	to := last.Truncate(time.Minute).Add(time.Minute)
	d, _ := DefaultSince(first, last, to)
	q := url.Values{"from": {to.Add(-d).UTC().Format(time.RFC3339)}, "to": {to.UTC().Format(time.RFC3339)}}
	if w.Service != "" {
		q.Set("service", w.Service)
	}
	return "/incident?" + q.Encode(), "The store's newest record is at " + last.UTC().Format("Jan 2 15:04:05 UTC") +
		": open the " + fmtDuration(d) + " up to it"
}

// withDefaultWindow is the request's query with since set to the default
// window when it names no window, and the note the page shows when that
// window is not defaultWindow.
func (s *server) withDefaultWindow(ctx context.Context, v url.Values, now time.Time) (url.Values, string) {
	if v.Get("since") != "" || v.Get("from") != "" || v.Get("to") != "" {
		return v, ""
	}
	first, last := s.storeBounds(ctx)
	d, short := DefaultSince(first, last, now)
	out := url.Values{}
	for k, vs := range v {
		out[k] = vs
	}
	out.Set("since", fmtDuration(d))
	if !short {
		return out, ""
	}
	return out, "The store's records begin at " + first.UTC().Format("15:04 UTC") + ", less than " + fmtDuration(2*defaultWindow) +
		" ago: the default window is the last " + fmtDuration(d) + ", from the middle of what the store holds, so that what comes before is its baseline."
}
