package enrich

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// ErrBadAlert is wrapped by every error of the alert parsers: the payload
// is not an alert group faultline understands.
var ErrBadAlert = errors.New("not a valid alert payload")

// Source names where an alert group came from.
type Source string

const (
	SourceAlertmanager Source = "alertmanager"
	SourceGrafana      Source = "grafana"
)

// Status is an alert group's state.
type Status string

const (
	StatusFiring   Status = "firing"
	StatusResolved Status = "resolved"
)

// DefaultServiceLabels are the labels that name the service, in order.
var defaultServiceLabels = []string{"service", "service_name", "job", "app"}

// DefaultServiceLabels returns the labels tried for the service name, first
// match wins: service, service_name, job, app.
func DefaultServiceLabels() []string { return slices.Clone(defaultServiceLabels) }

// Group is one alert group as a notifier sends it: what the message and the
// analysis need, normalised across Alertmanager and Grafana.
type Group struct {
	Source Source `json:"source"`
	// Key is the notifier's groupKey; ID a short stable hash of Source and
	// Key, used as the document id of the group's Slack state.
	Key    string `json:"group_key"`
	ID     string `json:"id"`
	Status Status `json:"status"`
	// Title is the alertname (Grafana: its title when no alertname).
	Title    string `json:"title"`
	Summary  string `json:"summary,omitempty"`
	Severity string `json:"severity,omitempty"`
	// Service is the first of the service labels present; empty when none.
	Service    string `json:"service,omitempty"`
	RunbookURL string `json:"runbook_url,omitempty"`
	SourceURL  string `json:"source_url,omitempty"`
	// StartsAt is the earliest start of the group's alerts; EndsAt the
	// latest end when the group is resolved (zero while firing).
	StartsAt time.Time `json:"starts_at"`
	EndsAt   time.Time `json:"ends_at,omitzero"`
	Firing   int       `json:"firing"`
	Resolved int       `json:"resolved"`
	// Hash identifies the group's alerts (fingerprints and starts), so an
	// identical resend is recognised.
	Hash   string            `json:"hash"`
	Labels map[string]string `json:"labels,omitempty"`
}

// webhookPayload is the body both notifiers send. Alertmanager's webhook
// payload version 4 and Grafana's unified alerting webhook share it;
// Grafana adds orgId, title, state and message.
type webhookPayload struct {
	Version           string            `json:"version"`
	GroupKey          string            `json:"groupKey"`
	TruncatedAlerts   int               `json:"truncatedAlerts"`
	Status            string            `json:"status"`
	Receiver          string            `json:"receiver"`
	GroupLabels       map[string]string `json:"groupLabels"`
	CommonLabels      map[string]string `json:"commonLabels"`
	CommonAnnotations map[string]string `json:"commonAnnotations"`
	ExternalURL       string            `json:"externalURL"`
	Alerts            []webhookAlert    `json:"alerts"`
	// Grafana only.
	OrgID *int64 `json:"orgId"`
	Title string `json:"title"`
	State string `json:"state"`
}

type webhookAlert struct {
	Status       string            `json:"status"`
	Labels       map[string]string `json:"labels"`
	Annotations  map[string]string `json:"annotations"`
	StartsAt     time.Time         `json:"startsAt"`
	EndsAt       time.Time         `json:"endsAt"`
	GeneratorURL string            `json:"generatorURL"`
	Fingerprint  string            `json:"fingerprint"`
}

// ParseOptions tune the parsers; the zero value uses the defaults.
type ParseOptions struct {
	// ServiceLabels are tried in order for the service (default
	// DefaultServiceLabels).
	ServiceLabels []string
}

// ParseAlertmanager reads an Alertmanager webhook body (payload version 4).
func ParseAlertmanager(data []byte, opt ParseOptions) (*Group, error) {
	p, err := decodePayload(data)
	if err != nil {
		return nil, err
	}
	if p.Version != "4" {
		return nil, fmt.Errorf("%w: Alertmanager payload version %q, want \"4\"", ErrBadAlert, cut(p.Version, 20))
	}
	return p.group(SourceAlertmanager, opt)
}

// ParseGrafana reads a Grafana unified alerting webhook body.
func ParseGrafana(data []byte, opt ParseOptions) (*Group, error) {
	p, err := decodePayload(data)
	if err != nil {
		return nil, err
	}
	return p.group(SourceGrafana, opt)
}

// Parse detects the notifier (Grafana sends orgId and state, Alertmanager
// version "4") and parses the body.
func Parse(data []byte, opt ParseOptions) (*Group, error) {
	p, err := decodePayload(data)
	if err != nil {
		return nil, err
	}
	if p.OrgID != nil || p.State != "" || p.Version == "1" {
		return p.group(SourceGrafana, opt)
	}
	if p.Version != "4" {
		return nil, fmt.Errorf("%w: payload version %q is neither Alertmanager's \"4\" nor Grafana's \"1\"", ErrBadAlert, cut(p.Version, 20))
	}
	return p.group(SourceAlertmanager, opt)
}

func decodePayload(data []byte) (*webhookPayload, error) {
	var p webhookPayload
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%w: %s", ErrBadAlert, jsonProblem(err))
	}
	return &p, nil
}

// jsonProblem describes a decoding error without echoing the input.
func jsonProblem(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("malformed JSON at byte %d", se.Offset)
	case errors.As(err, &te):
		return fmt.Sprintf("field %q has the wrong type", cut(te.Field, 60))
	case strings.Contains(err.Error(), "parsing time"):
		return "a startsAt or endsAt is not an RFC3339 time"
	default:
		return "not a JSON object"
	}
}

// group validates the payload and builds the Group.
func (p *webhookPayload) group(src Source, opt ParseOptions) (*Group, error) {
	st := Status(p.Status)
	if st != StatusFiring && st != StatusResolved {
		return nil, fmt.Errorf("%w: status %q, want firing or resolved", ErrBadAlert, cut(p.Status, 20))
	}
	if len(p.Alerts) == 0 {
		return nil, fmt.Errorf("%w: no alerts in the group", ErrBadAlert)
	}
	g := &Group{Source: src, Key: p.GroupKey, Status: st, Labels: p.CommonLabels}
	if g.Key == "" {
		g.Key = labelsKey(p.GroupLabels)
	}
	g.ID = groupID(src, g.Key)
	labels := p.mergedLabels()
	g.Title = firstNonEmpty(labels["alertname"], p.Title, "alert")
	ann := p.annotations()
	g.Summary = firstNonEmpty(ann["summary"], ann["description"], ann["message"])
	g.RunbookURL = firstNonEmpty(ann["runbook_url"], ann["runbook"])
	g.Severity = firstNonEmpty(labels["severity"], labels["priority"])
	g.Service = pickService(labels, opt.ServiceLabels)
	g.SourceURL = firstNonEmpty(p.Alerts[0].GeneratorURL, p.ExternalURL)
	g.fromAlerts(p.Alerts)
	return g, nil
}

// mergedLabels are the common labels, then the group labels, then the
// first alert's labels, earlier sources winning.
func (p *webhookPayload) mergedLabels() map[string]string {
	out := map[string]string{}
	for _, m := range []map[string]string{p.Alerts[0].Labels, p.GroupLabels, p.CommonLabels} {
		for k, v := range m {
			if v != "" {
				out[k] = v
			}
		}
	}
	return out
}

func (p *webhookPayload) annotations() map[string]string {
	out := map[string]string{}
	for _, m := range []map[string]string{p.Alerts[0].Annotations, p.CommonAnnotations} {
		for k, v := range m {
			if v != "" {
				out[k] = v
			}
		}
	}
	return out
}

// fromAlerts sets the counts, the start and end, and the hash.
func (g *Group) fromAlerts(alerts []webhookAlert) {
	var keys []string
	for _, a := range alerts {
		if a.Status == string(StatusResolved) {
			g.Resolved++
		} else {
			g.Firing++
		}
		if !a.StartsAt.IsZero() && (g.StartsAt.IsZero() || a.StartsAt.Before(g.StartsAt)) {
			g.StartsAt = a.StartsAt
		}
		if g.Status == StatusResolved && a.EndsAt.After(g.EndsAt) {
			g.EndsAt = a.EndsAt
		}
		fp := firstNonEmpty(a.Fingerprint, labelsKey(a.Labels))
		keys = append(keys, fp+"@"+a.StartsAt.UTC().Format(time.RFC3339Nano)+"/"+a.Status)
	}
	slices.Sort(keys)
	h := sha256.Sum256([]byte(strings.Join(keys, "\n")))
	g.Hash = hex.EncodeToString(h[:8])
}

// Window is the incident window to analyse, anchored on the alert, not on
// now: from StartsAt minus lookBack to EndsAt (when set and after
// StartsAt: a resolved alert, a replayed payload) or else StartsAt plus
// maxWindow, and never after now. An alert replayed or repeated days later
// is thus analysed on the stretch it fired in. A group with no start, or
// one starting after now (a skewed clock), is taken as starting now.
func (g *Group) Window(now time.Time, lookBack, maxWindow time.Duration) (from, to time.Time) {
	start := g.StartsAt
	if start.IsZero() || start.After(now) {
		start = now
	}
	to = now
	if maxWindow > 0 {
		to = start.Add(maxWindow)
	}
	if !g.EndsAt.IsZero() && g.EndsAt.After(start) && (maxWindow <= 0 || g.EndsAt.Before(to)) {
		to = g.EndsAt
	}
	if to.After(now) {
		to = now
	}
	return start.Add(-lookBack).UTC(), to.UTC()
}

func pickService(labels map[string]string, keys []string) string {
	if len(keys) == 0 {
		keys = defaultServiceLabels
	}
	for _, k := range keys {
		if v := strings.TrimSpace(labels[k]); v != "" {
			return v
		}
	}
	return ""
}

func groupID(src Source, key string) string {
	h := sha256.Sum256([]byte(string(src) + "\x00" + key))
	return string(src) + "-" + hex.EncodeToString(h[:12])
}

// labelsKey is a canonical string of a label set.
func labelsKey(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%q,", k, m[k])
	}
	return b.String()
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}
