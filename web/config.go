package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/faultline/faultline/rootcause"
)

// Config configures the web server. The zero value serves without access
// control, with the defaults named below.
type Config struct {
	// AuthToken, when set, is required on every page and API request, as
	// "Authorization: Bearer <token>" or through the session cookie the
	// /login form sets. /healthz, /static/ and /hooks/ stay open (the hooks
	// handler checks its own token).
	AuthToken string
	// BasicUser and BasicPassword, when both set, also admit HTTP basic auth.
	BasicUser, BasicPassword string
	// PublicURL is the base URL users reach the server at (for absolute
	// links to copy, and Secure cookies when it is https). Optional.
	PublicURL string
	// TLS tells that the server is reached over HTTPS (--tls-cert): the
	// session cookie is then Secure.
	TLS bool
	// RequestTimeout bounds every backend call (default 20s).
	RequestTimeout time.Duration
	// MaxCandidates caps the candidates a page renders (default 25).
	MaxCandidates int
	// MaxAPICandidates caps the candidates /api/v1/incident returns, and
	// is how many it returns when the request names no top (default and
	// at most rootcause.MaxTop).
	MaxAPICandidates int
	// MaxTimelineRows caps the trace waterfall rows rendered (default 250,
	// which keeps the page under 200 KB); origin and cascade rows are always
	// kept, and ?rows=N (at most 5000) shows more.
	MaxTimelineRows int
	// MaxAPITimelineRows caps the timeline /api/v1/trace returns (default 20000).
	MaxAPITimelineRows int
	// MaxServices caps the services drawn in timelines and the graph (default 40).
	MaxServices int
	// MaxWindow is the widest incident window accepted (default 7 days).
	MaxWindow time.Duration
	// RefreshInterval is how often the incident page refreshes (default 15s).
	RefreshInterval time.Duration
	// CacheTTL is how long an incident report is reused for the same query
	// (default 5s; negative disables). Relative windows ("last 1 h") end at
	// now rounded down to CacheTTL, so that requests close in time share one.
	CacheTTL time.Duration
	// MaxAnalyses is how many incident analyses run at once (default 2;
	// each may take hundreds of MB on a large window). AnalysisQueue is
	// how many more wait for one of them (default 4; negative: none);
	// past that a request gets 503 with Retry-After. Requests for the same
	// window share one analysis, which stops when all of them have left.
	MaxAnalyses   int
	AnalysisQueue int
	// Pool, when set, is where the analyses run instead of a pool of
	// MaxAnalyses and AnalysisQueue: one Pool shared with the process's
	// other analyses (the alert hooks' Wait) bounds them all together.
	Pool *Pool
	// DeadLetters, when non-nil, backs the dead-letter page (/deadletters)
	// and its resend button.
	DeadLetters DeadLetters
	// Hooks, when non-nil, is mounted at /hooks/ (alert webhooks).
	Hooks http.Handler
	// HookToken, when set, is the bearer token the hooks require: wrong
	// ones are rate-limited like failed sign-ins (see guardHooks).
	HookToken string
	// MCP, when non-nil, is called once by New with a Backend whose
	// incident and trace analyses share the pages' pool, cache and request
	// timeout (see PooledBackend), and the handler it returns is mounted at
	// /mcp (the Model Context Protocol's streamable HTTP endpoint), behind
	// the access control when it is on: a bearer token or basic auth, 401
	// otherwise; the session cookie is not accepted there.
	MCP func(Backend) http.Handler
	// Metrics, when non-nil, is served at /metrics, behind the same access
	// control as the API when it is on (a bearer token or basic auth for
	// scrapers; no redirect to the form).
	Metrics http.Handler
	// Health, when set, is asked by /healthz: an error makes it 503 (one
	// wrapping ErrUnhealthy says the store is damaged).
	Health func(ctx context.Context) error
	// Now is the clock (default time.Now); tests set it.
	Now func() time.Time
}

// Validate reports whether the configuration is usable, as New would.
func (c Config) Validate() error {
	_, err := c.withDefaults()
	return err
}

func (c Config) withDefaults() (Config, error) {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&c.MaxCandidates, 25)
	def(&c.MaxAPICandidates, rootcause.MaxTop)
	def(&c.MaxTimelineRows, 250)
	def(&c.MaxAPITimelineRows, 20000)
	def(&c.MaxServices, 40)
	def(&c.MaxAnalyses, 2)
	switch {
	case c.AnalysisQueue == 0:
		c.AnalysisQueue = 4
	case c.AnalysisQueue < 0:
		c.AnalysisQueue = 0
	}
	if c.RequestTimeout <= 0 {
		c.RequestTimeout = 20 * time.Second
	}
	if c.MaxWindow <= 0 {
		c.MaxWindow = 7 * 24 * time.Hour
	}
	if c.RefreshInterval <= 0 {
		c.RefreshInterval = 15 * time.Second
	}
	if c.CacheTTL == 0 {
		c.CacheTTL = 5 * time.Second
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.MaxAPICandidates > rootcause.MaxTop {
		return c, fmt.Errorf("%w: MaxAPICandidates %d is over %d, the most candidates an incident query may ask for", ErrConfig, c.MaxAPICandidates, rootcause.MaxTop)
	}
	if (c.BasicUser == "") != (c.BasicPassword == "") {
		return c, fmt.Errorf("%w: basic auth needs both a user and a password", ErrConfig)
	}
	if c.PublicURL != "" {
		u, err := url.Parse(c.PublicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return c, fmt.Errorf("%w: public URL %q must be an absolute http or https URL", ErrConfig, truncate(c.PublicURL, 80))
		}
		c.PublicURL = strings.TrimRight(c.PublicURL, "/")
	}
	return c, nil
}

// authEnabled reports whether any access control is configured.
func (c Config) authEnabled() bool { return c.AuthToken != "" || c.BasicUser != "" }

// secureCookies reports whether the session cookie gets the Secure flag.
func (c Config) secureCookies() bool { return c.TLS || strings.HasPrefix(c.PublicURL, "https://") }

// NewHTTPServer wraps h in an http.Server with timeouts on every phase of a
// request, sized for cfg's backend timeout.
func NewHTTPServer(addr string, h http.Handler, cfg Config) *http.Server {
	rt := cfg.RequestTimeout
	if rt <= 0 {
		rt = 20 * time.Second
	}
	return &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      rt + 15*time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
}

// truncate shortens s to at most n bytes (on a rune boundary) for messages.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
