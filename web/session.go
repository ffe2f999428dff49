package web

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// Sessions: the /login form gives the browser a random id (256 bits from
// crypto/rand) that names a session held in this process's memory. The
// cookie proves nothing by itself: /logout deletes the session, so the old
// cookie stops working at once, and a restart signs everyone out.
const (
	sessionTTL  = 12 * time.Hour
	maxSessions = 10000 // the oldest is dropped past this
)

type session struct {
	expires time.Time
	csrf    string
}

type sessionStore struct {
	now func() time.Time
	mu  sync.Mutex
	m   map[string]session
}

func newSessionStore(now func() time.Time) *sessionStore {
	return &sessionStore{now: now, m: map[string]session{}}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (crypto/rand panics rather than return short)
	return hex.EncodeToString(b)
}

// create starts a session and returns its id.
func (s *sessionStore) create() string {
	id := randomHex(32)
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.m) >= maxSessions {
		s.sweepLocked(now, true)
	}
	s.m[id] = session{expires: now.Add(sessionTTL), csrf: randomHex(32)}
	return id
}

// get returns the live session of id.
func (s *sessionStore) get(id string) (session, bool) {
	if len(id) != 64 {
		return session{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ss, ok := s.m[id]
	if ok && s.now().After(ss.expires) {
		delete(s.m, id)
		return session{}, false
	}
	return ss, ok
}

// revoke ends the session of id.
func (s *sessionStore) revoke(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, id)
}

// sweepLocked drops expired sessions and, when asked and none expired, the
// one closest to expiry.
func (s *sessionStore) sweepLocked(now time.Time, evict bool) {
	var oldest string
	var oldestAt time.Time
	n := len(s.m)
	for id, ss := range s.m {
		if now.After(ss.expires) {
			delete(s.m, id)
		} else if oldestAt.IsZero() || ss.expires.Before(oldestAt) {
			oldest, oldestAt = id, ss.expires
		}
	}
	if evict && len(s.m) == n && oldest != "" {
		delete(s.m, oldest)
	}
}

// Failed sign-ins are rate-limited per client address and over all
// clients, with token buckets: a burst, then a steady trickle. Over either
// the server answers 429 with Retry-After without looking at the
// credentials, so guessing the token from one address or many is slow.
const (
	loginBurstPerClient = 10
	loginRatePerClient  = 1.0 / 6 // a failure every 6 s after the burst
	loginBurstGlobal    = 100
	loginRateGlobal     = 1.0 // per second
	maxLoginClients     = 10000
)

type bucket struct {
	tokens float64
	at     time.Time
}

// take refills b and reports whether a token is left (without taking it
// when peek) and, if not, how long until one is.
func (b *bucket) take(now time.Time, burst, rate float64, peek bool) (bool, time.Duration) {
	if b.at.IsZero() {
		b.tokens, b.at = burst, now
	}
	b.tokens = math.Min(burst, b.tokens+now.Sub(b.at).Seconds()*rate)
	b.at = now
	if b.tokens < 1 {
		return false, time.Duration((1 - b.tokens) / rate * float64(time.Second))
	}
	if !peek {
		b.tokens--
	}
	return true, 0
}

type loginLimiter struct {
	now     func() time.Time
	mu      sync.Mutex
	global  bucket
	clients map[string]*bucket
}

func newLoginLimiter(now func() time.Time) *loginLimiter {
	return &loginLimiter{now: now, clients: map[string]*bucket{}}
}

// allow reports whether client may try to sign in now, else how long to wait.
func (l *loginLimiter) allow(client string) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if ok, wait := l.global.take(now, loginBurstGlobal, loginRateGlobal, true); !ok {
		return false, wait
	}
	if b := l.clients[client]; b != nil {
		return b.take(now, loginBurstPerClient, loginRatePerClient, true)
	}
	return true, 0
}

// failed counts a failed sign-in of client.
func (l *loginLimiter) failed(client string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.global.take(now, loginBurstGlobal, loginRateGlobal, false)
	b := l.clients[client]
	if b == nil {
		if len(l.clients) >= maxLoginClients {
			for k, o := range l.clients { // forget clients whose bucket refilled
				if o.tokens+now.Sub(o.at).Seconds()*loginRatePerClient >= loginBurstPerClient {
					delete(l.clients, k)
				}
			}
		}
		if len(l.clients) >= maxLoginClients {
			return // the global bucket still holds
		}
		b = &bucket{}
		l.clients[client] = b
	}
	b.take(now, loginBurstPerClient, loginRatePerClient, false)
}

// clientAddr is the request's peer address without the port. Forwarded
// headers are not trusted: anyone can set them.
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// csrfToken is the token a form that changes something must carry: the
// session's own, or for requests without a session (basic auth, no access
// control) one derived from the server's random key, so only pages this
// server rendered know it.
func (s *server) csrfToken(r *http.Request) string {
	if ck, err := r.Cookie(sessionCookie); err == nil {
		if ss, ok := s.sessions.get(ck.Value); ok {
			return ss.csrf
		}
	}
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte("faultline-csrf"))
	return hex.EncodeToString(m.Sum(nil))
}

// sameOrigin reports whether a browser says the request came from one of
// this server's pages (Origin or Sec-Fetch-Site); requests that say
// nothing (curl, scripts) pass, as they carry no ambient credentials of a
// browser's.
func sameOrigin(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		return false
	}
	if o := r.Header.Get("Origin"); o != "" && o != "null" {
		u, err := url.Parse(o)
		return err == nil && u.Host == r.Host
	}
	return r.Header.Get("Origin") != "null"
}
