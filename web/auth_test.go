package web

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

func TestAuthRefusesWithoutCredentials(t *testing.T) {
	h := newTestHandler(t, Config{AuthToken: "tok-123", BasicUser: "oncall", BasicPassword: "pw"}, newFixtureBackend())
	for _, p := range []string{"/api/v1/incident", "/api/v1/trace/" + string(fixtureTrace), "/api/v1/runbooks/x", "/api/v1/nothing"} {
		rec := get(h, p)
		if rec.Code != http.StatusUnauthorized || !strings.Contains(rec.Body.String(), `"error"`) {
			t.Errorf("%s without token: %d %s, want 401 JSON", p, rec.Code, rec.Body.String())
		}
		if rec.Header().Get("WWW-Authenticate") == "" {
			t.Errorf("%s: no WWW-Authenticate", p)
		}
	}
	for _, p := range []string{"/incident", "/trace/" + string(fixtureTrace), "/runbooks/" + fixtureRunbook, "/"} {
		rec := get(h, p)
		if rec.Code != http.StatusSeeOther || !strings.HasPrefix(rec.Header().Get("Location"), "/login?next=") {
			t.Errorf("%s without token: %d to %q, want a redirect to the login form", p, rec.Code, rec.Header().Get("Location"))
		}
	}
	if rec := get(h, "/api/v1/incident", "Authorization", "Bearer wrong"); rec.Code != http.StatusUnauthorized {
		t.Errorf("wrong token: %d", rec.Code)
	}
	if rec := get(h, "/healthz"); rec.Code != http.StatusOK {
		t.Errorf("/healthz must stay open, got %d", rec.Code)
	}
}

func TestAuthAdmitsTokenBasicAndCookie(t *testing.T) {
	h := newTestHandler(t, Config{AuthToken: "tok-123", BasicUser: "oncall", BasicPassword: "pw"}, newFixtureBackend())
	if rec := get(h, "/api/v1/incident", "Authorization", "Bearer tok-123"); rec.Code != http.StatusOK {
		t.Errorf("bearer: %d", rec.Code)
	}
	req := httptest.NewRequest(http.MethodGet, "/incident", nil)
	req.SetBasicAuth("oncall", "pw")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Errorf("basic: %d", rec.Code)
	}

	form := url.Values{"token": {"tok-123"}, "next": {"/trace/" + string(fixtureTrace)}}
	req = httptest.NewRequest(http.MethodPost, "/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/trace/"+string(fixtureTrace) {
		t.Fatalf("login: %d to %q", rec.Code, rec.Header().Get("Location"))
	}
	cookies := rec.Result().Cookies()
	if len(cookies) != 1 || !cookies[0].HttpOnly || cookies[0].Value == "tok-123" {
		t.Fatalf("session cookie = %+v, want one HttpOnly cookie not holding the token", cookies)
	}
	req = httptest.NewRequest(http.MethodGet, "/api/v1/incident", nil)
	req.AddCookie(cookies[0])
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Errorf("cookie: %d", rec.Code)
	}
}

func TestLoginRejectsBadTokenAndOpenRedirect(t *testing.T) {
	h := newTestHandler(t, Config{AuthToken: "tok-123"}, newFixtureBackend())
	post := func(form url.Values) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/login", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	if rec := post(url.Values{"token": {"nope"}}); rec.Code != http.StatusUnauthorized || len(rec.Result().Cookies()) != 0 {
		t.Errorf("bad token: %d cookies %v", rec.Code, rec.Result().Cookies())
	}
	for _, next := range []string{"https://evil.example", "//evil.example", "/\\evil.example", "javascript:alert(1)"} {
		rec := post(url.Values{"token": {"tok-123"}, "next": {next}})
		if loc := rec.Header().Get("Location"); loc != "/incident" {
			t.Errorf("next=%q redirected to %q, want /incident", next, loc)
		}
	}
}
