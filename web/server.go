package web

import (
	"io"
	"log/slog"
	"net/http"

	"github.com/gin-gonic/gin"
)

// server holds what the handlers share. It is built once by New.
type server struct {
	cfg     Config
	backend Backend
	log     *slog.Logger
	pages   *pages
	assets  *assets
	reports *reportCache
	// pool bounds the analyses (Config.Pool when set) and lets requests
	// for the same incident share one.
	pool     *Pool
	sessions *sessionStore
	logins   *loginLimiter
	key      []byte // random per process: CSRF tokens without a session
	resent   resentLog
	bounds   boundsCache // the store's first record, for the default window
	recent   recentIncidents
}

// New builds the web UI and API handler. backend must be non-nil; a nil
// logger discards.
func New(cfg Config, backend Backend, logger *slog.Logger) (http.Handler, error) {
	if backend == nil {
		return nil, ErrConfig
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	p, err := loadPages()
	if err != nil {
		return nil, err
	}
	a, err := loadAssets()
	if err != nil {
		return nil, err
	}
	pool := cfg.Pool
	if pool == nil {
		pool = NewPool(cfg.MaxAnalyses, cfg.AnalysisQueue)
	}
	s := &server{cfg: cfg, backend: backend, log: logger, pages: p, assets: a, reports: newReportCache(cfg.CacheTTL, cfg.Now),
		pool:     pool,
		sessions: newSessionStore(cfg.Now), logins: newLoginLimiter(cfg.Now), key: []byte(randomHex(32))}
	return s.routes(), nil
}

// routes builds the gin engine: middleware first, then the stable URLs of
// the contract.
func (s *server) routes() *gin.Engine {
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.RedirectTrailingSlash = false
	r.RedirectFixedPath = false
	r.HandleMethodNotAllowed = false
	r.Use(s.recoverPanics, securityHeaders, noStore, s.logRequests, s.checkHost)
	r.GET("/healthz", s.healthz)
	r.GET("/static/*path", s.serveAsset)
	r.GET("/login", s.loginPage)
	r.POST("/login", s.loginSubmit)
	r.POST("/logout", s.logout)
	if s.cfg.Hooks != nil {
		r.Any("/hooks/*path", s.guardHooks)
	}
	if s.cfg.MCP != nil {
		s.mountMCP(r)
	}
	if s.cfg.Metrics != nil {
		r.GET("/metrics", s.requireAuthStrict, gin.WrapH(s.cfg.Metrics))
	}
	g := r.Group("/", s.requireAuth, s.withTimeout)
	g.GET("/", func(c *gin.Context) { c.Redirect(http.StatusFound, "/incident") })
	g.GET("/incident", s.incidentPage)
	g.GET("/trace", s.traceSearch)
	g.GET("/trace/:id", s.tracePage)
	g.GET("/traces", s.tracesPage)
	g.GET("/runbooks/:id", s.runbookPage)
	g.GET("/api/v1/incident", s.apiIncident)
	g.GET("/api/v1/trace/:id", s.apiTrace)
	g.GET("/api/v1/traces", s.apiTraces)
	g.GET("/api/v1/runbooks/:id", s.apiRunbook)
	g.GET("/deadletters", s.deadLettersPage)
	g.POST("/deadletters/:id/resend", s.resendDeadLetter)
	g.GET("/api/v1/deadletters", s.apiDeadLetters)
	g.POST("/api/v1/deadletters/:id/resend", s.resendDeadLetter)
	r.NoRoute(misdirectedPush, s.requireAuth, s.notFound)
	return r
}
