package ingest

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net/http"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// Errors of handling a request, beside the body errors; statusOf maps them.
var (
	ErrBusy          = errors.New("too many writes in flight")
	ErrNothingUsable = errors.New("no usable record in the request")
)

// ServerConfig configures a Server. Zero fields take defaults.
type ServerConfig struct {
	// Decoder decodes bodies; nil means NewDecoder with default limits.
	Decoder *Decoder
	// Registry receives the server's metrics and is served on /metrics;
	// nil means a new registry.
	Registry *prometheus.Registry
	// Tracer traces request handling; nil means no tracing.
	Tracer trace.TracerProvider
	// Health reports whether the store is reachable and can take writes,
	// for /healthz; nil means always healthy. An error wrapping
	// ErrStoreBroken or ErrStoreNoSpace is shown with its sentence.
	Health func(context.Context) error
	// AuthToken, when set, is required on every endpoint but /healthz
	// (HTTP and gRPC): as a bearer token or as a basic-auth password.
	AuthToken string
	// TLS, when set, makes GRPC serve over TLS (the HTTP handlers are put
	// behind TLS by their http.Server).
	TLS *tls.Config
}

// Server is the HTTP side of ingest: it reads, caps and decompresses bodies,
// decodes them into one batch per request, writes the batch with one
// WriteBatch and answers with what was accepted and rejected. A 2xx is sent
// only after the write returned nil. At most Limits.MaxInFlight requests
// are decoded or written at once, and bodies in flight hold at most
// Limits.MaxBytesInFlight; more get 429. A body must arrive within
// Limits.BodyTimeout (408).
type Server struct {
	dec    *Decoder
	sink   Sink
	log    *slog.Logger
	m      *metrics
	reg    *prometheus.Registry
	tracer trace.Tracer
	health func(context.Context) error
	token  string
	tls    *tls.Config
	sem    chan struct{}
	big    chan struct{} // decodes of big bodies running: see handle
	mem    *byteBudget
	freed  atomic.Int64 // when memory was last returned to the OS (Unix ns)
}

// NewServer returns a server writing to sink; a nil logger discards.
func NewServer(cfg ServerConfig, sink Sink, log *slog.Logger) *Server {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.Decoder == nil {
		cfg.Decoder = NewDecoder(DecoderConfig{})
	}
	if cfg.Registry == nil {
		cfg.Registry = prometheus.NewRegistry()
	}
	if cfg.Tracer == nil {
		cfg.Tracer = noop.NewTracerProvider()
	}
	if cfg.Health == nil {
		cfg.Health = func(context.Context) error { return nil }
	}
	if ws, ok := sink.(writerStatuser); ok {
		cfg.Registry.MustRegister(newWriterCollector(ws))
	}
	return &Server{
		dec: cfg.Decoder, sink: sink, log: log, m: newMetrics(cfg.Registry), reg: cfg.Registry,
		tracer: cfg.Tracer.Tracer("github.com/faultline/faultline/ingest"), health: cfg.Health,
		token: cfg.AuthToken, tls: cfg.TLS,
		sem: make(chan struct{}, cfg.Decoder.Limits().MaxInFlight),
		big: make(chan struct{}, runtime.GOMAXPROCS(0)),
		mem: &byteBudget{max: cfg.Decoder.Limits().MaxBytesInFlight},
	}
}

// Handler serves the Loki push API, JSON lines, /healthz and /metrics
// (the --listen address). A gRPC call arriving on it (over h2c) gets
// UNIMPLEMENTED with the OTLP/gRPC port to use.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("POST /loki/api/v1/push", s.ingest(s.decodeLoki, s.replyStats))
	mux.Handle("POST /ingest/jsonl", s.ingest(s.decodeJSONL, s.replyStats))
	mux.HandleFunc("GET /healthz", s.serveHealth)
	mux.Handle("GET /metrics", s.requireToken(promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{})))
	wrongListener(mux, hintOTLPOnLoki, "/v1/logs", "/v1/traces")
	return grpcHint(mux)
}

// The answers to a push sent to the other listener: a 404 whose body,
// which shippers log, names the right one.
const (
	hintOTLPOnLoki = "OTLP/HTTP is served on ingest serve's --otlp-listen address (default :4318), not on this one (--listen: Loki push and JSON lines)"
	hintLokiOnOTLP = "Loki push and JSON lines are served on ingest serve's --listen address (default :3100), not on this one (--otlp-listen: OTLP/HTTP)"
)

// wrongListener answers POSTs to paths the other listener serves with
// hint.
func wrongListener(mux *http.ServeMux, hint string, paths ...string) {
	for _, p := range paths {
		mux.HandleFunc("POST "+p, func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, hint, http.StatusNotFound)
		})
	}
}

// OTLPHandler serves OTLP/HTTP /v1/logs and /v1/traces (the --otlp-listen
// address). A gRPC call arriving on it (over h2c) gets UNIMPLEMENTED with
// the OTLP/gRPC port to use; GRPC serves OTLP/gRPC.
func (s *Server) OTLPHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("POST /v1/logs", s.ingest(s.decodeOTLPLogs, s.replyOTLPLogs))
	mux.Handle("POST /v1/traces", s.ingest(s.decodeOTLPTraces, s.replyOTLPTraces))
	mux.HandleFunc("GET /healthz", s.serveHealth)
	wrongListener(mux, hintLokiOnOTLP, "/loki/api/v1/push", "/ingest/jsonl")
	return grpcHint(mux)
}

func (s *Server) serveHealth(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := s.health(ctx); err != nil {
		s.log.Warn("health check failed", "err", err)
		http.Error(w, healthReason(err), http.StatusServiceUnavailable)
		return
	}
	if ws, ok := s.sink.(writerStatuser); ok {
		if st := ws.IngestWriterStatus(); !st.Healthy {
			http.Error(w, "store writer unhealthy: "+st.unhealthyReason(), http.StatusServiceUnavailable)
			return
		}
	}
	w.Write([]byte("ok\n"))
}

// healthReason is the /healthz answer for a failed check: the store's own
// sentence when it names a class of failure (a damaged store, a full disk),
// else "store unreachable".
func healthReason(err error) string {
	switch {
	case errors.Is(err, ErrStoreBroken):
		return "store damaged: " + truncate(err.Error(), 300)
	case errors.Is(err, ErrStoreNoSpace):
		return "store disk full: " + truncate(err.Error(), 300)
	}
	return "store unreachable"
}

// statusOf maps an error of request handling to its HTTP status code; it
// is the one place that does.
func statusOf(err error) int {
	switch {
	case err == nil:
		return http.StatusOK
	case errors.Is(err, ErrTooLarge):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, ErrUnauthorized):
		return http.StatusUnauthorized
	case errors.Is(err, ErrSlowBody):
		return http.StatusRequestTimeout
	case errors.Is(err, ErrUnsupportedType):
		return http.StatusUnsupportedMediaType
	case errors.Is(err, ErrBadEncoding), errors.Is(err, ErrMalformed), errors.Is(err, ErrNothingUsable):
		return http.StatusBadRequest
	case errors.Is(err, ErrBusy):
		return http.StatusTooManyRequests
	case errors.Is(err, ErrStoreBroken):
		return http.StatusInternalServerError
	case errors.Is(err, ErrStoreFull), errors.Is(err, ErrStoreUnavailable), errors.Is(err, ErrStoreNoSpace):
		return http.StatusServiceUnavailable
	case errors.Is(err, ErrSink), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}
