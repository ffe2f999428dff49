// Package runbookgen writes the MTTR runbook of a root-cause candidate, or
// the generic runbook of a failure kind, as Markdown.
package runbookgen

import "github.com/faultline/faultline/schema"

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
}
