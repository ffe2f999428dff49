package web

import (
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/gin-gonic/gin"
)

// errForeignHost answers a request to an open server (no access control)
// that names another host: a page on another site whose name was made to
// point at this server (DNS rebinding) must not read it.
var errForeignHost = httpError{http.StatusForbidden,
	"this server answers only requests addressed to it: open it by its IP address or localhost, or start it with --public-url naming the host you use"}

// checkHost guards a server without access control against DNS
// rebinding: every route but /healthz needs a Host this server answers to
// (an IP address, localhost, the host of Config.PublicURL), and a request
// that carries an Origin (a browser's write) needs an Origin of such a
// host; Origin "null" (a sandboxed iframe or a data: URL, which any page
// can make) is no such host. The alert hooks, posted by Alertmanager and
// Grafana under any name (without an Origin), are held to the Origin rule
// only. A protected server needs credentials that a rebinding page does
// not have, and is not checked.
func (s *server) checkHost(c *gin.Context) {
	r := c.Request
	if s.cfg.authEnabled() || r.URL.Path == "/healthz" {
		c.Next()
		return
	}
	hook := strings.HasPrefix(r.URL.Path, "/hooks/")
	origin := r.Header.Get("Origin")
	ok := hook || s.ownHost(r.Host)
	if ok && origin != "" {
		u, err := url.Parse(origin)
		ok = err == nil && s.ownHost(u.Host)
	}
	if !ok {
		s.log.Warn("request for another host refused", "host", truncate(r.Host, 100), "origin", truncate(origin, 100), "path", truncate(r.URL.Path, 200))
		if isAPI(c) || hook {
			c.AbortWithStatusJSON(errForeignHost.status, gin.H{"error": errForeignHost.message})
			return
		}
		s.renderError(c, errForeignHost)
		return
	}
	c.Next()
}

// ownHost reports whether host (with or without a port) is one this
// server answers to.
func (s *server) ownHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.ToLower(strings.Trim(host, "[]"))
	switch {
	case host == "":
		return false
	case host == "localhost" || strings.HasSuffix(host, ".localhost"):
		return true
	case net.ParseIP(host) != nil:
		return true
	}
	if u, err := url.Parse(s.cfg.PublicURL); err == nil && u.Hostname() != "" {
		return strings.EqualFold(u.Hostname(), host)
	}
	return false
}
