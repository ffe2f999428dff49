package web

import (
	"crypto/subtle"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
)

// sessionCookie is the cookie the login form sets.
const sessionCookie = "faultline_session"

// authorized reports whether the request carries valid credentials: the
// bearer token, basic auth, or the session cookie.
func (s *server) authorized(r *http.Request) bool {
	if !s.cfg.authEnabled() || s.credentialed(r) {
		return true
	}
	if ck, err := r.Cookie(sessionCookie); err == nil {
		if _, ok := s.sessions.get(ck.Value); ok {
			return true
		}
	}
	return false
}

// credentialed reports whether the request carries the bearer token or
// the basic-auth password: credentials a browser never sends by itself.
func (s *server) credentialed(r *http.Request) bool {
	if s.cfg.AuthToken != "" {
		if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && equal(tok, s.cfg.AuthToken) {
			return true
		}
	}
	if s.cfg.BasicUser != "" {
		if u, p, ok := r.BasicAuth(); ok && equal(u, s.cfg.BasicUser) && equal(p, s.cfg.BasicPassword) {
			return true
		}
	}
	return false
}

func equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// limitedFailure counts a request that sent wrong credentials (a bearer
// token, a password) as a failed sign-in, and answers 429 when its client
// or everyone has failed too often: true when it answered.
func (s *server) limitedFailure(c *gin.Context) bool {
	if c.GetHeader("Authorization") == "" {
		return false
	}
	client := clientAddr(c.Request)
	if ok, wait := s.logins.allow(client); !ok {
		s.tooManyLogins(c, wait)
		return true
	}
	s.logins.failed(client)
	return false
}

// requireAuth refuses unauthenticated requests: 401 JSON for the API, a
// redirect to the login form for pages.
func (s *server) requireAuth(c *gin.Context) {
	if s.authorized(c.Request) {
		c.Next()
		return
	}
	if s.limitedFailure(c) {
		return
	}
	if s.cfg.BasicUser != "" {
		c.Header("WWW-Authenticate", `Basic realm="faultline", charset="UTF-8"`)
	} else {
		c.Header("WWW-Authenticate", `Bearer realm="faultline"`)
	}
	if isAPI(c) || c.Request.Method != http.MethodGet {
		s.fail(c, errUnauthorized)
		return
	}
	c.Redirect(http.StatusSeeOther, "/login?next="+url.QueryEscape(c.Request.URL.RequestURI()))
	c.Abort()
}

// loginPage shows the sign-in form.
func (s *server) loginPage(c *gin.Context) {
	if !s.cfg.authEnabled() {
		c.Redirect(http.StatusSeeOther, safeNext(c.Query("next")))
		return
	}
	s.renderLogin(c, http.StatusOK, safeNext(c.Query("next")), "")
}

// loginSubmit checks the form's credentials and sets the session cookie.
func (s *server) loginSubmit(c *gin.Context) {
	c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, 8<<10)
	next := safeNext(c.PostForm("next"))
	if !s.cfg.authEnabled() {
		c.Redirect(http.StatusSeeOther, next)
		return
	}
	client := clientAddr(c.Request)
	if ok, wait := s.logins.allow(client); !ok {
		s.log.Warn("sign-in refused: too many failures", "remote", client)
		s.tooManyLogins(c, wait)
		return
	}
	tokOK := s.cfg.AuthToken != "" && equal(c.PostForm("token"), s.cfg.AuthToken)
	basicOK := s.cfg.BasicUser != "" && equal(c.PostForm("user"), s.cfg.BasicUser) && equal(c.PostForm("password"), s.cfg.BasicPassword)
	if !tokOK && !basicOK {
		s.logins.failed(client)
		s.log.Info("failed sign-in", "remote", client)
		s.renderLogin(c, http.StatusUnauthorized, next, "Those credentials are not valid.")
		return
	}
	http.SetCookie(c.Writer, &http.Cookie{
		Name: sessionCookie, Value: s.sessions.create(), Path: "/", MaxAge: int(sessionTTL.Seconds()),
		HttpOnly: true, Secure: s.cfg.secureCookies(), SameSite: http.SameSiteLaxMode,
	})
	c.Redirect(http.StatusSeeOther, next)
}

// logout ends the session (the old cookie stops working) and clears the cookie.
func (s *server) logout(c *gin.Context) {
	if ck, err := c.Request.Cookie(sessionCookie); err == nil {
		s.sessions.revoke(ck.Value)
	}
	http.SetCookie(c.Writer, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteLaxMode})
	c.Redirect(http.StatusSeeOther, "/login")
}

// safeNext keeps a post-login redirect on this site: a path starting with
// one slash, never a scheme or a protocol-relative URL.
func safeNext(next string) string {
	if next == "" || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n\t") {
		return "/incident"
	}
	if u, err := url.Parse(next); err != nil || u.Scheme != "" || u.Host != "" {
		return "/incident"
	}
	return next
}

// tooManyLogins answers 429 with Retry-After.
func (s *server) tooManyLogins(c *gin.Context, wait time.Duration) {
	c.Header("Retry-After", strconv.Itoa(max(1, int(math.Ceil(wait.Seconds())))))
	he := httpError{http.StatusTooManyRequests, "too many failed sign-ins; wait a minute and try again"}
	if isAPI(c) || c.Request.URL.Path != "/login" {
		c.AbortWithStatusJSON(he.status, gin.H{"error": he.message})
		return
	}
	s.renderLogin(c, he.status, safeNext(c.PostForm("next")), "Too many failed sign-ins; wait a minute and try again.")
}
