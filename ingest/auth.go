package ingest

import (
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
)

// ErrUnauthorized is a request without the ingest token (Config.AuthToken):
// HTTP 401, gRPC UNAUTHENTICATED.
var ErrUnauthorized = errors.New("missing or wrong ingest token")

// errNoToken is what a client without the token is told.
var errNoToken = badInput(ErrUnauthorized, nil,
	"this server needs the ingest token: send the header Authorization: Bearer TOKEN, or basic auth with the token as password")

// authRealm is the WWW-Authenticate challenge of a 401.
const authRealm = `Bearer realm="faultline ingest"`

// authorized reports whether the value of an Authorization header carries
// token: "Bearer TOKEN", or "Basic" with TOKEN as the password (any user
// name: Promtail, Alloy and Vector send basic auth with a user). An empty
// token admits everything.
func authorized(token, header string) bool {
	if token == "" {
		return true
	}
	scheme, cred, _ := strings.Cut(strings.TrimSpace(header), " ")
	cred = strings.TrimSpace(cred)
	switch strings.ToLower(scheme) {
	case "bearer":
		return equalSecret(cred, token)
	case "basic":
		dec, err := base64.StdEncoding.DecodeString(cred)
		if err != nil {
			return false
		}
		_, pass, ok := strings.Cut(string(dec), ":")
		return ok && equalSecret(pass, token)
	}
	return false
}

func equalSecret(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// requireToken serves h only to requests with the token; others get 401
// with one sentence saying what to send.
func (s *Server) requireToken(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !authorized(s.token, r.Header.Get("Authorization")) {
			w.Header().Set("WWW-Authenticate", authRealm)
			http.Error(w, publicError(errNoToken), http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}
