package enrich

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// Hooks returns the handler of the alert webhooks, served at their full
// paths: POST /hooks/alertmanager (webhook payload version 4) and
// POST /hooks/grafana (unified alerting). It answers at once: 202 when the
// group is kept in the store and queued (or is a resend of one queued), 400 for a body that is
// not an alert, 401 without the configured bearer token, 413 over the size
// limit, 503 with Retry-After when the queue is full, the store cannot
// keep the alert, or the service is shutting down.
func (s *Service) Hooks() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("POST /hooks/alertmanager", s.hook(ParseAlertmanager))
	mux.Handle("POST /hooks/grafana", s.hook(ParseGrafana))
	return s.authorize(mux)
}

// NewHooks is s.Hooks().
func NewHooks(s *Service) http.Handler { return s.Hooks() }

// authorize requires "Authorization: Bearer <HookToken>" when one is set,
// compared in constant time.
func (s *Service) authorize(next http.Handler) http.Handler {
	want := []byte(s.cfg.HookToken)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(want) > 0 {
			got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !ok || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), want) != 1 {
				s.m.rejected.WithLabelValues("unauthorized").Inc()
				w.Header().Set("WWW-Authenticate", `Bearer realm="faultline hooks"`)
				hookReply(w, http.StatusUnauthorized, "error", "a bearer token is required: set the receiver's Authorization header to \"Bearer <FAULTLINE_HOOK_TOKEN>\"")
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

type parseFunc func([]byte, ParseOptions) (*Group, error)

func (s *Service) hook(parse parseFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBody))
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig):
			s.m.rejected.WithLabelValues("too_large").Inc()
			hookReply(w, http.StatusRequestEntityTooLarge, "error", "the alert body is over "+strconv.FormatInt(s.cfg.MaxBody, 10)+" bytes; lower max_alerts in the receiver")
			return
		case err != nil:
			s.m.rejected.WithLabelValues("read").Inc()
			hookReply(w, http.StatusBadRequest, "error", "the alert body could not be read")
			return
		}
		g, err := parse(body, ParseOptions{ServiceLabels: s.cfg.ServiceLabels})
		if err != nil {
			s.m.rejected.WithLabelValues("invalid").Inc()
			hookReply(w, http.StatusBadRequest, "error", err.Error())
			return
		}
		queued, err := s.Enqueue(g)
		if err != nil {
			reason := "closed"
			switch {
			case errors.Is(err, ErrQueueFull):
				reason = "queue_full"
			case errors.Is(err, ErrNotKept):
				reason = "not_kept"
			}
			s.m.rejected.WithLabelValues(reason).Inc()
			s.log.Warn("alert refused; the notifier will retry", "group", g.ID, "error", err)
			w.Header().Set("Retry-After", strconv.Itoa(max(1, int(s.cfg.RetryAfter.Seconds()))))
			hookReply(w, http.StatusServiceUnavailable, "error", err.Error())
			return
		}
		status := "accepted"
		if !queued {
			status = "duplicate"
		}
		hookReply(w, http.StatusAccepted, "status", status, "group", g.ID)
	})
}

// hookReply writes a small JSON object of key/value pairs.
func hookReply(w http.ResponseWriter, code int, kv ...string) {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(m)
}
