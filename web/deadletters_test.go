package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
)

// fakeDLQ keeps dead letters in memory.
type fakeDLQ struct {
	mu      sync.Mutex
	letters []DeadLetter
	resent  []string
	fail    bool
}

func (f *fakeDLQ) DeadLetters(context.Context) ([]DeadLetter, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]DeadLetter(nil), f.letters...), nil
}

func (f *fakeDLQ) Resend(_ context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, dl := range f.letters {
		if dl.ID == id {
			if f.fail {
				return fmt.Errorf("slack down")
			}
			f.letters = append(f.letters[:i], f.letters[i+1:]...)
			f.resent = append(f.resent, id)
			return nil
		}
	}
	return fmt.Errorf("dead letter %q: %w", id, schema.ErrNotFound)
}

func newDLQ() *fakeDLQ {
	return &fakeDLQ{letters: []DeadLetter{
		{ID: "alertmanager-aa-firing-1", At: fixtureNow.Add(-time.Minute), Reason: "slack", Error: "gave up after 8 attempts: slack server error: 500",
			Attempts: 8, Title: "CheckoutHighErrorRate <script>alert(1)</script>", Service: "checkout", Status: "firing"},
		{ID: "grafana-bb-resolved-2", At: fixtureNow.Add(-2 * time.Minute), Reason: "shutdown", Title: "LatencyHigh", Status: "resolved"},
	}}
}

var csrfField = regexp.MustCompile(`name="csrf" value="([0-9a-f]{64})"`)

// TestDeadLettersPageAndResend: the page lists dead letters with their
// reason (escaped), and the resend button works only with the form's CSRF
// token from the same site, behind the access control.
func TestDeadLettersPageAndResend(t *testing.T) {
	dlq := newDLQ()
	h := newTestHandler(t, Config{AuthToken: "tok-123", DeadLetters: dlq}, newFixtureBackend())
	if rec := get(h, "/deadletters"); rec.Code != http.StatusSeeOther {
		t.Errorf("page without credentials: %d, want a redirect to sign in", rec.Code)
	}
	login := postForm(h, "/login", url.Values{"token": {"tok-123"}})
	ck := login.Result().Cookies()[0]
	req := httptest.NewRequest(http.MethodGet, "/deadletters", nil)
	req.AddCookie(ck)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	body := rec.Body.String()
	if rec.Code != 200 || !strings.Contains(body, "gave up after 8 attempts") || !strings.Contains(body, "shutdown") ||
		strings.Contains(body, "<script>alert(1)") || !strings.Contains(body, `href="/deadletters"`) {
		t.Fatalf("page: %d\n%s", rec.Code, body)
	}
	m := csrfField.FindStringSubmatch(body)
	if m == nil {
		t.Fatal("no CSRF token in the resend form")
	}
	resend := func(form url.Values, hdr ...string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/deadletters/alertmanager-aa-firing-1/resend", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.AddCookie(ck)
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	if rec := resend(nil); rec.Code != http.StatusForbidden {
		t.Errorf("resend without the CSRF token: %d, want 403", rec.Code)
	}
	if rec := resend(url.Values{"csrf": {m[1]}}, "Origin", "https://evil.example"); rec.Code != http.StatusForbidden {
		t.Errorf("resend from another site: %d, want 403", rec.Code)
	}
	if rec := resend(url.Values{"csrf": {m[1]}}, "Sec-Fetch-Site", "cross-site"); rec.Code != http.StatusForbidden {
		t.Errorf("cross-site resend: %d, want 403", rec.Code)
	}
	if len(dlq.resent) != 0 {
		t.Fatalf("a refused request resent %v", dlq.resent)
	}
	rec = resend(url.Values{"csrf": {m[1]}}, "Origin", "http://example.com", "Sec-Fetch-Site", "same-origin")
	if rec.Code != http.StatusSeeOther || !strings.HasPrefix(rec.Header().Get("Location"), "/deadletters?resent=") || len(dlq.resent) != 1 {
		t.Fatalf("resend: %d to %q, resent %v", rec.Code, rec.Header().Get("Location"), dlq.resent)
	}
	if rec := resend(url.Values{"csrf": {m[1]}}); rec.Code != http.StatusNotFound {
		t.Errorf("resend of a letter already resent: %d, want 404", rec.Code)
	}
	// Scripts: the JSON API with the bearer token needs no CSRF token.
	api := httptest.NewRequest(http.MethodPost, "/api/v1/deadletters/grafana-bb-resolved-2/resend", nil)
	api.Header.Set("Authorization", "Bearer tok-123")
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, api)
	if rec.Code != 200 || len(dlq.resent) != 2 {
		t.Errorf("API resend: %d %s", rec.Code, rec.Body.String())
	}
	rec = get(h, "/api/v1/deadletters", "Authorization", "Bearer tok-123")
	var list struct {
		DeadLetters []DeadLetter `json:"dead_letters"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil || rec.Code != 200 || list.DeadLetters == nil || len(list.DeadLetters) != 0 {
		t.Errorf("API list: %d %s", rec.Code, rec.Body.String())
	}
}

func TestDeadLettersWithoutEnrichment(t *testing.T) {
	h := newTestHandler(t, Config{}, newFixtureBackend())
	if rec := get(h, "/deadletters"); rec.Code != http.StatusNotFound {
		t.Errorf("page without enrichment: %d, want 404", rec.Code)
	}
	if strings.Contains(get(h, "/incident").Body.String(), `href="/deadletters"`) {
		t.Errorf("nav links the dead letters without enrichment")
	}
}
