// Package runbookgen writes the MTTR runbook of a root-cause candidate, or
// the generic runbook of a failure kind, as Markdown.
//
// A Generator renders embedded text/template files (templates/, one per
// kind, over the Data model that TEMPLATES.md documents); a team can
// override them per kind or per service and kind from a directory without
// rebuilding. Text from logs reaches the Markdown only escaped: as a code
// span by default, or escaped for the shell, LogQL, PromQL or SQL inside
// commands. Runbooks are saved as JSON documents in any DocStore so that
// `analyze runbook ID` and /runbooks/ID find them later by their stable id.
package runbookgen

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/faultline/faultline/schema"
)

// Runbook is one generated runbook: what /api/v1/runbooks/ID serves and
// `analyze runbook` prints (Markdown).
type Runbook struct {
	ID             string      `json:"id"`
	Title          string      `json:"title"`
	Kind           schema.Kind `json:"kind"`
	Service        string      `json:"service,omitempty"`
	Severity       string      `json:"severity"` // P1, P2 or P3
	SeverityReason string      `json:"severity_reason"`
	MTTRTarget     string      `json:"mttr_target"` // "15m", "1h", "4h"
	URL            string      `json:"url"`
	Markdown       string      `json:"markdown"`
	// AlertRunbookURL is the runbook an alert rule already names
	// (the runbook_url annotation), linked beside ours.
	AlertRunbookURL string `json:"alert_runbook_url,omitempty"`
	// Additions: the candidate this runbook was written for (its id may
	// differ from ID), where the Markdown came from ("built-in" or the path
	// of a team template), and problems met while writing it.
	CandidateID string `json:"candidate_id,omitempty"`
	// From and To are the incident window the runbook was written for
	// (zero for a generic runbook).
	From time.Time `json:"from,omitzero"`
	To   time.Time `json:"to,omitzero"`
	// Written is when the runbook was written (not part of its text, nor
	// of its id).
	Written time.Time `json:"written,omitzero"`
	Generic bool      `json:"generic,omitempty"`
	Source  string    `json:"source,omitempty"`
	Notes   []string  `json:"notes,omitempty"`
}

// SourceBuiltIn is Runbook.Source for the embedded templates.
const SourceBuiltIn = "built-in"

// MaxAlertURLLen caps an alert's runbook_url.
const MaxAlertURLLen = 2048

// ErrBadAlertURL is returned for a runbook_url that is not an absolute http(s) URL.
var ErrBadAlertURL = errors.New("runbook_url is not an absolute http or https URL")

// Ref is how an analysis result links to this runbook.
func (rb *Runbook) Ref() *schema.RunbookRef {
	return &schema.RunbookRef{ID: rb.ID, Severity: rb.Severity, MTTRTarget: rb.MTTRTarget,
		URL: "/runbooks/" + rb.ID}
}

// alertLinePrefix starts the line that links the alert's own runbook.
const alertLinePrefix = "**Runbook named by the alert rule:** "

// LinkAlertRunbook records the runbook an alert rule names (the
// Alertmanager / Grafana runbook_url annotation) and links it beside ours,
// right under the title. Calling it again replaces the link.
func (rb *Runbook) LinkAlertRunbook(raw string) error {
	if rb == nil {
		return fmt.Errorf("cannot link alert runbook to no runbook: %w", ErrBadAlertURL)
	}
	u, err := safeLink(raw)
	if err != nil {
		return fmt.Errorf("cannot link alert runbook %q: %w", cut(clean(raw), 80), err)
	}
	rb.AlertRunbookURL = u
	link := alertLinePrefix + "[" + mdEscape(cut(u, 80)) + "](" + u + ")"
	var kept []string
	for _, l := range strings.Split(rb.Markdown, "\n") {
		if !strings.HasPrefix(l, alertLinePrefix) {
			kept = append(kept, l)
		}
	}
	// Right under the title line; tidy collapses the extra blank lines.
	lines := append([]string{kept[0], "", link, ""}, kept[1:]...)
	rb.Markdown = tidy(strings.Join(lines, "\n"))
	return nil
}

// safeLink checks that raw is an absolute http(s) URL and returns it with
// every character that could end a Markdown link destination or an HTML
// attribute percent-encoded.
func safeLink(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" || len(raw) > MaxAlertURLLen || strings.ContainsFunc(raw, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return "", ErrBadAlertURL
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", ErrBadAlertURL
	}
	r := strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29", "<", "%3C", ">", "%3E",
		`"`, "%22", "'", "%27", "`", "%60", "[", "%5B", "]", "%5D", `\`, "%5C")
	return r.Replace(u.String()), nil
}
