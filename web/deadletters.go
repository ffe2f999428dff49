package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/faultline/faultline/schema"
	"github.com/gin-gonic/gin"
)

// DeadLetters are the alert messages that could not be delivered to Slack.
// It is owned here; the command wires it to the enrichment service. An
// unknown id in Resend wraps schema.ErrNotFound.
type DeadLetters interface {
	// DeadLetters lists them, newest first.
	DeadLetters(ctx context.Context) ([]DeadLetter, error)
	// Resend delivers one now; delivered, it leaves the list.
	Resend(ctx context.Context, id string) error
}

// DeadLetter is one undelivered message, as listed. Error is redacted.
type DeadLetter struct {
	ID       string    `json:"id"`
	At       time.Time `json:"at"`
	Reason   string    `json:"reason"`
	Error    string    `json:"error"`
	Attempts int       `json:"attempts"`
	Title    string    `json:"title"`
	Service  string    `json:"service,omitempty"`
	Severity string    `json:"severity,omitempty"`
	Status   string    `json:"status"`
	// ResendError is the latest failed resend's error; Reason and Error
	// stay why the letter was made.
	ResendError string `json:"resend_error,omitempty"`
}

// maxDeadLettersShown caps the rows of the page.
const maxDeadLettersShown = 200

var (
	errForbidden  = errors.New("forbidden")
	errNoDLQ      = errors.New("dead letters unavailable")
	errResendFail = errors.New("resend failed")
)

// deadLettersView is what the page shows.
type deadLettersView struct {
	Letters []DeadLetter
	Hidden  int
	CSRF    string
	Notice  string
	Problem string
}

// deadLettersPage serves GET /deadletters.
func (s *server) deadLettersPage(c *gin.Context) {
	list, err := s.deadLetterList(c)
	if err != nil {
		s.fail(c, err)
		return
	}
	v := deadLettersView{CSRF: s.csrfToken(c.Request)}
	// The notices name only what the server knows: a letter this server
	// resent lately, or one still listed; any other text in the URL is
	// ignored.
	if id := c.Query("resent"); id != "" && s.resent.has(id, s.cfg.Now()) {
		v.Notice = "Resent " + truncate(id, 80) + " to Slack."
	}
	if id := c.Query("failed"); id != "" && listed(list, id) {
		v.Problem = "Slack did not take " + truncate(id, 80) + "; it stays listed with the new error."
	}
	if len(list) > maxDeadLettersShown {
		v.Hidden, list = len(list)-maxDeadLettersShown, list[:maxDeadLettersShown]
	}
	v.Letters = list
	s.render(c, http.StatusOK, "deadletters", "Dead letters", v)
}

func listed(list []DeadLetter, id string) bool {
	for _, dl := range list {
		if dl.ID == id {
			return true
		}
	}
	return false
}

// apiDeadLetters serves GET /api/v1/deadletters.
func (s *server) apiDeadLetters(c *gin.Context) {
	list, err := s.deadLetterList(c)
	if err != nil {
		s.fail(c, err)
		return
	}
	if list == nil {
		list = []DeadLetter{}
	}
	c.Header("Cache-Control", "no-store")
	c.JSON(http.StatusOK, gin.H{"dead_letters": list})
}

func (s *server) deadLetterList(c *gin.Context) ([]DeadLetter, error) {
	if s.cfg.DeadLetters == nil {
		return nil, errNoDLQ
	}
	list, err := s.cfg.DeadLetters.DeadLetters(c.Request.Context())
	if err != nil {
		return nil, err
	}
	return list, nil
}

// resendDeadLetter serves POST /deadletters/ID/resend (a form, redirecting
// back to the list) and POST /api/v1/deadletters/ID/resend (JSON). It is a
// write: behind the same access control as every page, and, unless the
// request carries a bearer token (which browsers never add by themselves),
// it must come from this site's own form with its CSRF token.
func (s *server) resendDeadLetter(c *gin.Context) {
	c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, 8<<10)
	if !s.writeAllowed(c) {
		s.fail(c, errForbidden)
		return
	}
	if s.cfg.DeadLetters == nil {
		s.fail(c, errNoDLQ)
		return
	}
	id := c.Param("id")
	if id == "" || len(id) > 512 || strings.ContainsAny(id, "\x00\r\n") {
		s.fail(c, fmt.Errorf("%w: that is not a dead-letter id", ErrBadInput))
		return
	}
	err := s.cfg.DeadLetters.Resend(c.Request.Context(), id)
	switch {
	case errors.Is(err, schema.ErrNotFound):
		s.failNotFound(c, "no such dead letter; it may have been resent already")
		return
	case errors.Is(err, ErrConflict):
		s.fail(c, err)
		return
	case err != nil:
		s.log.Warn("dead letter not resent", "dead_letter", truncate(id, 80), "error", err)
		if isAPI(c) {
			s.fail(c, errResendFail)
			return
		}
		c.Redirect(http.StatusSeeOther, "/deadletters?failed="+url.QueryEscape(id))
		return
	}
	s.resent.add(id, s.cfg.Now())
	if isAPI(c) {
		c.JSON(http.StatusOK, gin.H{"status": "resent", "id": id})
		return
	}
	c.Redirect(http.StatusSeeOther, "/deadletters?resent="+url.QueryEscape(id))
}

// writeAllowed is the CSRF check of a write: a bearer token, or a request
// from this site (Origin, Sec-Fetch-Site) carrying the form's token.
func (s *server) writeAllowed(c *gin.Context) bool {
	if _, ok := strings.CutPrefix(c.GetHeader("Authorization"), "Bearer "); ok {
		return true // requireAuth checked it; browsers never send it on their own
	}
	return sameOrigin(c.Request) && equal(c.PostForm("csrf"), s.csrfToken(c.Request))
}
