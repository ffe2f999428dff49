package runbookgen

import (
	"embed"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/template"
	"text/template/parse"

	"github.com/faultline/faultline/schema"
)

//go:embed templates/*.md.tmpl
var builtinFS embed.FS // read-only embedded files, not state

// Template file names.
const (
	layoutFile   = "_layout.md.tmpl"
	tmplSuffix   = ".md.tmpl"
	layoutName   = "runbook" // the template that lays out every section
	maxTmplBytes = 256 << 10 // a team template larger than this is refused
)

// funcs are the functions every template may call. Each takes a Text or
// any other value (cleaned and cut to MaxEvidenceLen) and escapes it.
func funcs() template.FuncMap {
	return template.FuncMap{
		"code":   func(v any) string { return toText(v).String() },
		"md":     func(v any) string { return toText(v).Plain() },
		"sh":     func(v any) string { return toText(v).Sh() },
		"logql":  func(v any) string { return toText(v).LogQL() },
		"promql": func(v any) string { return toText(v).PromQL() },
		"sql":    func(v any) string { return toText(v).SQL() },
		// count writes a number and its noun: count 1 "trace" "traces" is "1 trace".
		"count": func(n int, one, many string) string {
			if n == 1 {
				return "1 " + one
			}
			return strconv.Itoa(n) + " " + many
		},
		"join": func(ts []Text, sep string) string {
			parts := make([]string, len(ts))
			for i, t := range ts {
				parts[i] = t.String()
			}
			return strings.Join(parts, sep)
		},
	}
}

// parseBuiltins parses the layout with each kind's file, one set per kind.
func parseBuiltins() (map[schema.Kind]*template.Template, error) {
	out := make(map[schema.Kind]*template.Template, len(schema.Kinds))
	for _, k := range schema.Kinds {
		// The root must not be named like a defined template: Clone would
		// keep the root (without a body) in its place.
		t, err := template.New("_builtin").Funcs(funcs()).ParseFS(builtinFS,
			"templates/"+layoutFile, "templates/"+string(k)+tmplSuffix)
		if err != nil {
			return nil, fmt.Errorf("cannot parse built-in runbook of %q: %w", k, err)
		}
		out[k] = t
	}
	return out, nil
}

// overrideKey names a team template: service "" is the kind's template.
type overrideKey struct {
	service string
	kind    schema.Kind
}

// override is one team template; err is set when it did not parse.
type override struct {
	path  string
	tmpl  *template.Template
	entry string // the template to execute: the file's own, or the layout
	err   error
}

// loadOverrides reads DIR/<kind>.md.tmpl and DIR/<service>/<kind>.md.tmpl.
func (g *Generator) loadOverrides(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("cannot read runbook templates %q: %w", dir, err)
	}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if !e.IsDir() {
			g.loadFile(path, "")
			continue
		}
		sub, err := os.ReadDir(path)
		if err != nil {
			g.problem(fmt.Errorf("cannot read runbook templates %q: %w", path, err))
			continue
		}
		for _, f := range sub {
			if !f.IsDir() {
				g.loadFile(filepath.Join(path, f.Name()), e.Name())
			}
		}
	}
	return nil
}

// loadFile parses one team template; files without the suffix are ignored.
func (g *Generator) loadFile(path, service string) {
	name := filepath.Base(path)
	if !strings.HasSuffix(name, tmplSuffix) || strings.HasPrefix(name, ".") {
		return
	}
	kind := schema.Kind(strings.TrimSuffix(name, tmplSuffix))
	if !kind.Valid() {
		g.problem(fmt.Errorf("%s: %w: %q is not a failure kind (the file name must be <kind>%s)",
			path, ErrUnknownKind, kind, tmplSuffix))
		return
	}
	ov := &override{path: path}
	ov.tmpl, ov.entry, ov.err = parseOverride(g.builtin[kind], path)
	if ov.err != nil {
		g.problem(ov.err)
	} else {
		g.log.Debug("runbook template loaded", "path", path, "kind", kind, "service", service)
	}
	g.override[overrideKey{service: service, kind: kind}] = ov
}

// parseOverride parses path over a copy of the kind's built-in set, so it
// may call or redefine the built-in sections. A file with nothing but
// {{define}} blocks executes the built-in layout with its sections.
func parseOverride(builtin *template.Template, path string) (*template.Template, string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, "", fmt.Errorf("cannot read runbook template %q: %w", path, err)
	}
	if fi.Size() > maxTmplBytes {
		return nil, "", fmt.Errorf("%s: %w: larger than %d bytes", path, ErrTemplate, maxTmplBytes)
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, "", fmt.Errorf("cannot read runbook template %q: %w", path, err)
	}
	set, err := builtin.Clone()
	if err != nil {
		return nil, "", fmt.Errorf("cannot copy built-in templates for %q: %w", path, err)
	}
	t, err := set.New(path).Parse(string(src))
	if err != nil {
		return nil, "", fmt.Errorf("%w: %w", ErrTemplate, err)
	}
	if t.Tree == nil || parse.IsEmptyTree(t.Tree.Root) {
		return t, layoutName, nil
	}
	return t, path, nil
}

// problem records and logs a problem with the team templates.
func (g *Generator) problem(err error) {
	g.log.Warn("runbook template unusable; the built-in runbook is used instead", "err", err)
	g.problems = append(g.problems, err)
}
