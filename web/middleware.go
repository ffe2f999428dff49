package web

import (
	"context"
	"fmt"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
)

// contentSecurityPolicy allows only this server's own scripts, styles and
// fetches: no inline script, no framing, no plugins.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; " +
	"img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// securityHeaders sets the headers every response carries.
func securityHeaders(c *gin.Context) {
	h := c.Writer.Header()
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	c.Next()
}

// noStore keeps every answer out of shared and browser caches (pages,
// the API, runbook Markdown, errors alike): they show incident data that a
// later request may see changed or must not see at all. Static assets set
// their own Cache-Control over it.
func noStore(c *gin.Context) {
	c.Header("Cache-Control", "no-store")
	c.Next()
}

// recoverPanics turns a panic in a handler into a logged 500 that shows no internals.
func (s *server) recoverPanics(c *gin.Context) {
	defer func() {
		v := recover()
		if v == nil {
			return
		}
		if v == http.ErrAbortHandler {
			panic(v)
		}
		s.log.Error("panic serving request", "path", c.Request.URL.Path, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
		if c.Writer.Written() {
			c.Abort()
			return
		}
		s.fail(c, errPanic)
	}()
	c.Next()
}

// logRequests logs each request at debug level, and failures at warn.
func (s *server) logRequests(c *gin.Context) {
	start := time.Now()
	c.Next()
	status := c.Writer.Status()
	level := "debug"
	if status >= 500 {
		level = "warn"
	}
	attrs := []any{"method", c.Request.Method, "path", truncate(c.Request.URL.Path, 200), "status", status, "took", time.Since(start)}
	if level == "warn" {
		s.log.Warn("request failed", attrs...)
		return
	}
	s.log.Debug("request", attrs...)
}

// withTimeout gives the request context a deadline for backend calls.
func (s *server) withTimeout(c *gin.Context) {
	ctx, cancel := context.WithTimeout(c.Request.Context(), s.cfg.RequestTimeout)
	defer cancel()
	c.Request = c.Request.WithContext(ctx)
	c.Next()
}

// isAPI reports whether the request wants JSON rather than a page.
func isAPI(c *gin.Context) bool { return strings.HasPrefix(c.Request.URL.Path, "/api/") }
