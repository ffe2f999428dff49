package web

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
)

// ErrConflict is wrapped by a DeadLetters.Resend refused because the
// letter is being resent right now (by another request or process); it
// maps to 409.
var ErrConflict = errors.New("conflict")

// ErrUnhealthy is wrapped by a Config.Health error that means the data
// cannot be read (a damaged store); /healthz then answers 503 saying so.
var ErrUnhealthy = errors.New("unhealthy")

// healthTimeout bounds the health check's read.
const healthTimeout = 5 * time.Second

// healthz serves GET /healthz: "ok", or 503 with one sentence when
// Config.Health reports the store unusable. It never needs credentials and
// never shows internals.
func (s *server) healthz(c *gin.Context) {
	if s.cfg.Health != nil {
		ctx, cancel := context.WithTimeout(c.Request.Context(), healthTimeout)
		defer cancel()
		if err := s.cfg.Health(ctx); err != nil {
			s.log.Warn("health check failed", "err", err)
			msg := "not ok: the store cannot be read; the details are in the server log\n"
			if errors.Is(err, ErrUnhealthy) {
				msg = "not ok: the store is damaged (corrupt); restore it from a backup\n"
			}
			c.Header("Cache-Control", "no-store")
			c.String(http.StatusServiceUnavailable, msg)
			return
		}
	}
	c.String(http.StatusOK, "ok\n")
}

// guardHooks puts the failed-sign-in limiter in front of the alert hooks
// when Config.HookToken is set: a request with the right bearer token
// always passes (a flood of wrong ones cannot keep the notifiers out); a
// wrong or missing one counts as a failed sign-in of its client, and past
// the limit (per client or overall) it gets 429 with Retry-After instead of
// 401. The hooks handler still checks the token itself.
func (s *server) guardHooks(c *gin.Context) {
	if s.cfg.HookToken != "" {
		tok, ok := strings.CutPrefix(c.GetHeader("Authorization"), "Bearer ")
		if !ok || !equal(tok, s.cfg.HookToken) {
			client := clientAddr(c.Request)
			if ok, wait := s.logins.allow(client); !ok {
				s.tooManyLogins(c, wait)
				return
			}
			s.logins.failed(client)
		}
	}
	s.cfg.Hooks.ServeHTTP(c.Writer, c.Request)
}

// requireAuthStrict is requireAuth for machine endpoints (/metrics): 401,
// never a redirect to the sign-in form.
func (s *server) requireAuthStrict(c *gin.Context) {
	if s.authorized(c.Request) {
		c.Next()
		return
	}
	s.refuseStrict(c)
}

// refuseStrict answers a machine endpoint's request without valid
// credentials: 429 past the failed-login limit, else 401 (never a
// redirect).
func (s *server) refuseStrict(c *gin.Context) {
	if s.limitedFailure(c) {
		return
	}
	c.Header("WWW-Authenticate", `Bearer realm="faultline"`)
	c.AbortWithStatusJSON(http.StatusUnauthorized, gin.H{"error": classify(errUnauthorized).message})
}

// resentLog remembers the dead letters this server resent lately, so the
// page's "Resent X" notice shows only what the server did, never text
// from a URL.
type resentLog struct {
	mu  sync.Mutex
	ids map[string]time.Time
}

const (
	resentKeep = 10 * time.Minute
	resentMax  = 1000
)

func (l *resentLog) add(id string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ids == nil {
		l.ids = map[string]time.Time{}
	}
	if len(l.ids) >= resentMax {
		for k, at := range l.ids {
			if now.Sub(at) > resentKeep || len(l.ids) >= resentMax {
				delete(l.ids, k)
			}
		}
	}
	l.ids[id] = now
}

func (l *resentLog) has(id string, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	at, ok := l.ids[id]
	return ok && now.Sub(at) <= resentKeep
}
