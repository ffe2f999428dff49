package web

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/rootcause"
)

// mcpProbe is a stand-in for the MCP handler: it asks the Backend New
// handed it for an incident and answers with the number of candidates.
func mcpProbe(got *Backend) func(Backend) http.Handler {
	return func(b Backend) http.Handler {
		*got = b
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rep, err := b.Incident(r.Context(), IncidentQuery{From: fixtureNow.Add(-time.Hour), To: fixtureNow})
			if err != nil {
				http.Error(w, err.Error(), http.StatusServiceUnavailable)
				return
			}
			_ = json.NewEncoder(w).Encode(map[string]int{"candidates": len(rep.Candidates)})
		})
	}
}

// TestMCPMountedBehindCredentials: /mcp takes the bearer token or basic
// auth, never the session cookie alone, answers 401 (no redirect) without
// them, refuses a cross-site browser post, and its backend runs in the
// pages' pool and cache.
func TestMCPMountedBehindCredentials(t *testing.T) {
	fb := newFixtureBackend()
	var b Backend
	h := newTestHandler(t, Config{AuthToken: "tok-SECRET", BasicUser: "u", BasicPassword: "p", MCP: mcpProbe(&b)}, fb)
	if _, ok := b.(pooledBackend); !ok {
		t.Fatalf("the MCP handler got %T, want the pooled backend", b)
	}
	post := func(hdr ...string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{}`))
		req.Header.Set("Content-Type", "application/json")
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	if rec := post(); rec.Code != http.StatusUnauthorized || rec.Header().Get("Location") != "" {
		t.Errorf("no credentials: %d %q, want 401 without a redirect", rec.Code, rec.Header().Get("Location"))
	}
	if rec := post("Authorization", "Bearer wrong"); rec.Code != http.StatusUnauthorized || strings.Contains(rec.Body.String(), "SECRET") {
		t.Errorf("wrong token: %d %s", rec.Code, rec.Body)
	}
	if rec := post("Cookie", sessionCookie+"="+randomHex(32)); rec.Code != http.StatusUnauthorized {
		t.Errorf("a cookie alone: %d, want 401", rec.Code)
	}
	if rec := post("Authorization", "Bearer tok-SECRET"); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"candidates"`) {
		t.Errorf("bearer token: %d %s", rec.Code, rec.Body)
	}
	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{}`))
	req.SetBasicAuth("u", "p")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Errorf("basic auth: %d %s", rec.Code, rec.Body)
	}
	if rec := post("Authorization", "Bearer tok-SECRET", "Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example"); rec.Code != http.StatusForbidden {
		t.Errorf("cross-site browser post: %d, want 403", rec.Code)
	}
	// The two authorised calls asked for the same window: one analysis.
	if fb.calls != 1 {
		t.Errorf("%d analyses for two identical queries within the cache TTL, want 1 (the pages' cache)", fb.calls)
	}
}

// TestMCPPooledBackendBusy: past the pool and its queue an MCP call is
// refused with ErrBusy, as the API answers 503.
func TestMCPPooledBackendBusy(t *testing.T) {
	block := make(chan struct{})
	fb := &mcpGateBackend{fakeBackend: newFixtureBackend(), block: block, started: make(chan struct{}, 1)}
	var b Backend
	_ = newTestHandler(t, Config{MaxAnalyses: 1, AnalysisQueue: -1, CacheTTL: -1, MCP: mcpProbe(&b)}, fb)
	done := make(chan error, 1)
	go func() {
		_, err := b.Incident(context.Background(), IncidentQuery{From: fixtureNow.Add(-time.Hour), To: fixtureNow})
		done <- err
	}()
	<-fb.started
	_, err := b.Incident(context.Background(), IncidentQuery{From: fixtureNow.Add(-2 * time.Hour), To: fixtureNow})
	if !errors.Is(err, ErrBusy) {
		t.Errorf("second analysis while the only slot is taken: %v, want ErrBusy", err)
	}
	close(block)
	if err := <-done; err != nil {
		t.Errorf("first analysis: %v", err)
	}
}

// TestMCPPooledDo: work run through the pooled backend's Do (the patterns
// tool) takes a slot of the pages' pool: while an analysis holds the only
// one it is refused with ErrBusy, and while it runs an analysis is.
func TestMCPPooledDo(t *testing.T) {
	block := make(chan struct{})
	fb := &mcpGateBackend{fakeBackend: newFixtureBackend(), block: block, started: make(chan struct{}, 1)}
	var b Backend
	_ = newTestHandler(t, Config{MaxAnalyses: 1, AnalysisQueue: -1, CacheTTL: -1, MCP: mcpProbe(&b)}, fb)
	do, ok := b.(interface {
		Do(context.Context, func(context.Context) error) error
	})
	if !ok {
		t.Fatalf("the MCP backend %T has no Do", b)
	}
	done := make(chan error, 1)
	go func() {
		_, err := b.Incident(context.Background(), IncidentQuery{From: fixtureNow.Add(-time.Hour), To: fixtureNow})
		done <- err
	}()
	<-fb.started
	ran := false
	if err := do.Do(context.Background(), func(context.Context) error { ran = true; return nil }); !errors.Is(err, ErrBusy) || ran {
		t.Errorf("Do while an analysis holds the only slot: %v (ran %v), want ErrBusy", err, ran)
	}
	close(block)
	if err := <-done; err != nil {
		t.Errorf("the analysis: %v", err)
	}
	hold, release := make(chan struct{}), make(chan struct{})
	go do.Do(context.Background(), func(context.Context) error { close(hold); <-release; return nil })
	<-hold
	if _, err := b.Incident(context.Background(), IncidentQuery{From: fixtureNow.Add(-3 * time.Hour), To: fixtureNow}); !errors.Is(err, ErrBusy) {
		t.Errorf("an analysis while Do holds the only slot: %v, want ErrBusy", err)
	}
	close(release)
}

// mcpGateBackend's Incident waits for block, after saying it started.
type mcpGateBackend struct {
	*fakeBackend
	block   chan struct{}
	started chan struct{}
}

func (b *mcpGateBackend) Incident(ctx context.Context, q IncidentQuery) (*rootcause.Report, error) {
	select {
	case b.started <- struct{}{}:
	default:
	}
	<-b.block
	return b.fakeBackend.Incident(ctx, q)
}
