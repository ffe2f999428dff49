package web

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/faultline/faultline/schema"
	"github.com/gin-gonic/gin"
)

var (
	errPanic        = errors.New("panic")
	errUnauthorized = errors.New("unauthorized")
	errNoRoute      = errors.New("no such page")
)

// httpError is an error with the status and the message safe to show.
type httpError struct {
	status  int
	message string
}

// classify maps an error to its HTTP status and user-facing message. It is
// the one place where errors become status codes. Only ErrBadInput errors
// show their own text (built from truncated input); everything else gets a
// fixed sentence, so no internals leak.
func classify(err error) httpError {
	switch {
	case errors.Is(err, ErrBadInput):
		return httpError{http.StatusBadRequest, err.Error()}
	case errors.Is(err, errUnauthorized):
		return httpError{http.StatusUnauthorized, "authentication required: send the access token or sign in"}
	case errors.Is(err, errForbidden):
		return httpError{http.StatusForbidden, "this form has expired or came from another site; reload the page and try again"}
	case errors.Is(err, errNoDLQ):
		return httpError{http.StatusNotFound, "alert enrichment is not configured, so there are no dead letters"}
	case errors.Is(err, ErrUnhealthy):
		return httpError{http.StatusInternalServerError, "the store is damaged (corrupt) and cannot be read; restore it from a backup (the details are in the server log)"}
	case errors.Is(err, ErrConflict):
		return httpError{http.StatusConflict, "that dead letter is being resent right now; reload the list in a moment"}
	case errors.Is(err, errResendFail):
		return httpError{http.StatusBadGateway, "Slack did not take the message; it stays listed, and the details are in the server log"}
	case errors.Is(err, errNoRoute):
		return httpError{http.StatusNotFound, "no such page"}
	case errors.Is(err, schema.ErrNotFound):
		return httpError{http.StatusNotFound, "not found"}
	case errors.Is(err, errBusy):
		return httpError{http.StatusServiceUnavailable, "the server is busy with other analyses; retry in a few seconds"}
	case errors.Is(err, context.DeadlineExceeded):
		return httpError{http.StatusGatewayTimeout, "the analysis took too long; try a narrower window or a single service"}
	case errors.Is(err, context.Canceled):
		return httpError{499, "request cancelled"}
	default:
		return httpError{http.StatusInternalServerError, "internal error; the details are in the server log"}
	}
}

// fail answers a request with err: JSON {"error": "..."} under /api/, an
// error page elsewhere. Server errors are logged with their internals.
func (s *server) fail(c *gin.Context, err error) {
	he := classify(err)
	if he.status == http.StatusServiceUnavailable {
		c.Header("Retry-After", strconv.Itoa(int(busyRetryAfter.Seconds())))
	}
	if he.status >= 500 && !errors.Is(err, errPanic) {
		s.log.Error("request failed", "path", truncate(c.Request.URL.Path, 200), "err", err)
	}
	if isAPI(c) {
		c.AbortWithStatusJSON(he.status, gin.H{"error": he.message})
		return
	}
	s.renderError(c, he)
}

// failNotFound answers 404 with a message naming what was missing.
func (s *server) failNotFound(c *gin.Context, what string) {
	if isAPI(c) {
		c.AbortWithStatusJSON(http.StatusNotFound, gin.H{"error": what})
		return
	}
	s.renderError(c, httpError{http.StatusNotFound, what})
}

func (s *server) notFound(c *gin.Context) { s.fail(c, errNoRoute) }

// misdirectedPush answers a shipper that sends logs or spans to the web
// server instead of `ingest serve`: a 404 whose body, which shippers log,
// names the right listener. It needs no credentials: it tells nothing
// about the data.
func misdirectedPush(c *gin.Context) {
	if c.Request.Method != http.MethodPost {
		return
	}
	switch c.Request.URL.Path {
	case "/loki/api/v1/push", "/ingest/jsonl", "/v1/logs", "/v1/traces":
		c.AbortWithStatusJSON(http.StatusNotFound, gin.H{"error": "this is faultline's web server (analyze serve), which does not take records; " +
			"send them to ingest serve: Loki push and JSON lines on its --listen (default :3100), OTLP/HTTP on --otlp-listen (default :4318), OTLP/gRPC on --otlp-grpc-listen (default :4317)"})
	}
}

// errNilDocument is a backend that answered neither a document nor an error.
var errNilDocument = errors.New("backend returned no document")
