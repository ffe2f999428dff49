package web

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
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

func postForm(h http.Handler, path string, form url.Values, cookies ...*http.Cookie) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for _, c := range cookies {
		req.AddCookie(c)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// TestLogoutRevokesTheSession: the cookie is a random session id, not a
// hash of the credentials, and after /logout the old cookie no longer works.
func TestLogoutRevokesTheSession(t *testing.T) {
	h := newTestHandler(t, Config{AuthToken: "tok-123"}, newFixtureBackend())
	login := func() *http.Cookie {
		rec := postForm(h, "/login", url.Values{"token": {"tok-123"}})
		cs := rec.Result().Cookies()
		if rec.Code != http.StatusSeeOther || len(cs) != 1 {
			t.Fatalf("login: %d %v", rec.Code, cs)
		}
		return cs[0]
	}
	a, b := login(), login()
	if a.Value == b.Value {
		t.Errorf("two sign-ins got the same cookie %q: it is derived from the token, not random", a.Value)
	}
	apiWith := func(c *http.Cookie) int {
		req := httptest.NewRequest(http.MethodGet, "/api/v1/incident", nil)
		req.AddCookie(c)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	if code := apiWith(a); code != http.StatusOK {
		t.Fatalf("fresh session: %d", code)
	}
	if rec := postForm(h, "/logout", nil, a); rec.Code != http.StatusSeeOther {
		t.Fatalf("logout: %d", rec.Code)
	}
	if code := apiWith(a); code != http.StatusUnauthorized {
		t.Errorf("the cookie still works after /logout: %d, want 401", code)
	}
	if code := apiWith(b); code != http.StatusOK {
		t.Errorf("another session was signed out too: %d", code)
	}
	forged := &http.Cookie{Name: sessionCookie, Value: strings.Repeat("ab", 32)}
	if code := apiWith(forged); code != http.StatusUnauthorized {
		t.Errorf("a made-up session id: %d, want 401", code)
	}
}

// TestFailedLoginsAreRateLimited: wrong tokens from one address soon get
// 429 with Retry-After (even the right token is then refused until the wait
// is over), other addresses are not locked out by one, and a flood from many
// addresses hits the global limit.
func TestFailedLoginsAreRateLimited(t *testing.T) {
	h := newTestHandler(t, Config{AuthToken: "tok-123"}, newFixtureBackend())
	try := func(addr, tok string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/login", strings.NewReader(url.Values{"token": {tok}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.RemoteAddr = addr + ":4242"
		req.Header.Set("X-Forwarded-For", "10.9.9.9") // not trusted
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	limited := 0
	for i := range 200 {
		rec := try("192.0.2.77", "guess-"+strconv.Itoa(i))
		if rec.Code == http.StatusTooManyRequests {
			limited++
			if rec.Header().Get("Retry-After") == "" {
				t.Fatalf("429 without Retry-After")
			}
		}
	}
	if limited < 180 {
		t.Errorf("%d of 200 wrong sign-ins from one address were refused with 429, want nearly all", limited)
	}
	if rec := try("192.0.2.77", "tok-123"); rec.Code != http.StatusTooManyRequests {
		t.Errorf("right token during the lock-out: %d, want 429 (no oracle)", rec.Code)
	}
	if rec := try("198.51.100.7", "tok-123"); rec.Code != http.StatusSeeOther {
		t.Errorf("another address is locked out by the first: %d", rec.Code)
	}
	if rec := get(h, "/api/v1/incident", "Authorization", "Bearer wrong"); rec.Code != http.StatusUnauthorized {
		t.Errorf("first wrong bearer token: %d, want 401", rec.Code)
	}
	globalLimited := false
	for i := range 300 {
		if try("203.0.113."+strconv.Itoa(i%250), "x").Code == http.StatusTooManyRequests {
			globalLimited = true
			break
		}
	}
	if !globalLimited {
		t.Errorf("300 failures from 250 addresses never hit the global limit")
	}
}
