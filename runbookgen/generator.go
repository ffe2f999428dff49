package runbookgen

import (
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"strings"
	"text/template"
	"time"

	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/schema"
)

// Environment variables for Config, as the CLI and server read them.
const (
	EnvTemplatesDir = "FAULTLINE_RUNBOOKS"
	EnvPublicURL    = "FAULTLINE_PUBLIC_URL"
)

// Sentinel errors.
var (
	// ErrUnknownKind: a kind that is not one of schema.Kinds.
	ErrUnknownKind = errors.New("unknown failure kind")
	// ErrBadConfig: a Config value that cannot be used.
	ErrBadConfig = errors.New("bad runbook configuration")
	// ErrTemplate: a team template failed to parse or execute.
	ErrTemplate = errors.New("runbook template failed")
)

// Config configures a Generator. The zero value uses the built-in
// templates and relative links.
type Config struct {
	// TemplatesDir holds team templates that override the built-in ones
	// (--runbooks DIR or $FAULTLINE_RUNBOOKS); see TEMPLATES.md for the
	// layout. "" means built-ins only.
	TemplatesDir string
	// PublicURL is the base of links in runbooks, e.g.
	// "https://faultline.example.com" ($FAULTLINE_PUBLIC_URL). "" gives
	// links relative to the web UI's root.
	PublicURL string
	// Store is the store the analyses read (the --store value), for the
	// runbooks' `analyze` commands to name it and run as printed: a path
	// is made absolute; a URL with a password becomes "$FAULTLINE_STORE",
	// never written into a runbook. "" leaves --store out.
	Store string
}

// Generator writes runbooks. It is safe for concurrent use once built.
type Generator struct {
	log      *slog.Logger
	base     string
	store    string // " --store ARG" for commands, or ""
	builtin  map[schema.Kind]*template.Template
	override map[overrideKey]*override
	problems []error
}

// New builds a Generator: it parses the built-in templates and the team
// templates in cfg.TemplatesDir. A team template that does not parse does
// not fail New: it is logged, kept in Problems, and the built-in runbook is
// used in its place. New fails on an unusable PublicURL or a TemplatesDir
// that cannot be read.
func New(cfg Config, logger *slog.Logger) (*Generator, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	base, err := checkBase(cfg.PublicURL)
	if err != nil {
		return nil, err
	}
	g := &Generator{log: logger, base: base, store: StoreFlag(cfg.Store), override: map[overrideKey]*override{}}
	if g.builtin, err = parseBuiltins(); err != nil {
		return nil, err
	}
	if cfg.TemplatesDir != "" {
		if err := g.loadOverrides(cfg.TemplatesDir); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// StoreFlag is the " --store ARG" an analyze command needs to read the
// store raw names, as a command line to copy gives it ("" for ""): a path
// made absolute and quoted for the shell when it must be; a URL with a
// password "$FAULTLINE_STORE", never the password itself.
func StoreFlag(raw string) string {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return ""
	}
	if u, err := url.Parse(raw); err == nil && u.Scheme != "" && u.Scheme != "file" && len(u.Scheme) > 1 {
		if _, hasPass := u.User.Password(); hasPass || u.Query().Has("password") {
			return ` --store "$FAULTLINE_STORE"`
		}
		return " --store " + shQuote(raw)
	}
	if abs, err := filepath.Abs(strings.TrimPrefix(raw, "file:")); err == nil {
		raw = abs
	}
	return " --store " + shQuote(raw)
}

// checkBase validates a public base URL and drops its trailing slash.
func checkBase(raw string) (string, error) {
	if raw == "" {
		return "", nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		u.RawQuery != "" || u.Fragment != "" || strings.ContainsAny(raw, " ()<>\"'`[]\\") {
		return "", fmt.Errorf("cannot use public URL %q: %w: want an absolute http(s) URL without query", cut(clean(raw), 80), ErrBadConfig)
	}
	return strings.TrimRight(raw, "/"), nil
}

// StoreFlag is the " --store ARG" of the runbooks' analyze commands ("" when
// Config.Store was empty).
func (g *Generator) StoreFlag() string { return g.store }

// Problems lists what is wrong with the team templates found by New:
// parse errors (with file and line), unknown kinds, unreadable files.
func (g *Generator) Problems() []error { return g.problems }

// ForCandidate writes the runbook of candidate c of report rep, under an
// id of its own text (see versionID): another analysis that says anything
// else gives another id, so a link keeps what it said. It never
// fails: a team template that breaks falls back to the built-in runbook
// and says so in Notes. A nil c gives the generic runbook of "unknown".
func (g *Generator) ForCandidate(rep *rootcause.Report, c *rootcause.Candidate) *Runbook {
	if rep == nil {
		rep = &rootcause.Report{}
	}
	if c == nil {
		rb, _ := g.ForKind(schema.KindUnknown)
		return rb
	}
	d := g.newData(rep, c)
	// The id names this text: render once under the stable id to learn
	// what the runbook says, then again under the id of that text (the
	// runbook links itself).
	d.ID = versionID(d.ID, g.render(d, c.Service))
	d.URL = g.runbookURL(d.ID)
	rb := g.render(d, c.Service)
	rb.CandidateID = c.ID
	rb.From, rb.To, rb.Written = rep.Window.From, rep.Window.To, time.Now().UTC()
	_, rb.SeverityReason = severity(rep, c, func(t Text) string { return `"` + t.raw() + `"` })
	return rb
}

// ForKind writes the generic runbook of a kind, with placeholders where an
// incident's values would go.
func (g *Generator) ForKind(k schema.Kind) (*Runbook, error) {
	if !k.Valid() {
		return nil, fmt.Errorf("cannot write runbook of kind %q: %w", cut(clean(string(k)), 40), ErrUnknownKind)
	}
	return g.render(g.newKindData(k), ""), nil
}

// Attach writes the runbook of every candidate of rep, links it from the
// candidate (Candidate.Runbook) and returns the runbooks, in candidate
// order, for the caller to Save.
func (g *Generator) Attach(rep *rootcause.Report) []*Runbook {
	if rep == nil {
		return nil
	}
	out := make([]*Runbook, 0, len(rep.Candidates))
	for i := range rep.Candidates {
		rb := g.ForCandidate(rep, &rep.Candidates[i])
		rep.Candidates[i].Runbook = rb.Ref()
		out = append(out, rb)
	}
	return out
}

// runbookURL is the link to a runbook.
func (g *Generator) runbookURL(id string) string { return g.base + "/runbooks/" + id }

// incidentURL is the link to the incident page of a window and service.
func (g *Generator) incidentURL(w rootcause.Window, svc string) string {
	if w.From.IsZero() || w.To.IsZero() {
		return ""
	}
	q := url.Values{"from": {rfc3339(w.From)}, "to": {rfc3339(w.To)}}
	if svc != "" && svc == clean(svc) && len([]rune(svc)) <= MaxServiceLen {
		q.Set("service", svc)
	}
	return g.base + "/incident?" + q.Encode()
}
