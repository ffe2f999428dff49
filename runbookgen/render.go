package runbookgen

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"text/template"

	"github.com/faultline/faultline/schema"
)

// MaxRunbookBytes caps a rendered runbook; a template that writes more fails.
const MaxRunbookBytes = 256 << 10

// ErrTooLong: a template wrote more than MaxRunbookBytes.
var ErrTooLong = errors.New("runbook longer than the limit")

// render executes the most specific template that works for d: the team's
// service + kind template, the team's kind template, then the built-in one.
func (g *Generator) render(d *Data, service string) *Runbook {
	keys := []overrideKey{{service: "", kind: d.Kind}}
	if service != "" {
		keys = append([]overrideKey{{service: service, kind: d.Kind}}, keys...)
	}
	var notes []Text
	for _, key := range keys {
		ov := g.override[key]
		if ov == nil {
			continue
		}
		if ov.err == nil {
			md, err := execute(ov.tmpl, ov.entry, d, notes)
			if err == nil {
				return newRunbook(d, md, ov.path, notes)
			}
			ov = &override{path: ov.path, err: err}
			g.log.Warn("runbook template failed; using the next one", "path", ov.path, "err", err)
		}
		notes = append(notes, NewText(fmt.Sprintf("The team template %s could not be used, so this is the next one: %v",
			ov.path, ov.err), MaxNoteLen))
	}
	t := g.builtin[d.Kind]
	if t == nil {
		t = g.builtin[schema.KindUnknown]
	}
	md, err := execute(t, layoutName, d, notes)
	if err != nil { // a bug in a built-in template; tests keep it from happening
		g.log.Error("built-in runbook template failed", "kind", d.Kind, "err", err)
		md = "# " + d.Title + "\n\nThe built-in runbook failed to render: " + NewText(err.Error(), MaxNoteLen).String() + "\n"
	}
	return newRunbook(d, md, SourceBuiltIn, notes)
}

// execute runs entry of t over a copy of d that carries notes, capped at
// MaxRunbookBytes, and tidies the Markdown.
func execute(t *template.Template, entry string, d *Data, notes []Text) (string, error) {
	dd := *d
	dd.Notes = append(append([]Text(nil), d.Notes...), notes...)
	w := &capWriter{max: MaxRunbookBytes}
	if err := t.ExecuteTemplate(w, entry, &dd); err != nil {
		if errors.Is(err, ErrTooLong) {
			err = fmt.Errorf("%s: %w", t.Name(), err)
		}
		return "", err
	}
	return tidy(w.buf.String()), nil
}

// capWriter is a buffer that refuses to grow past max bytes.
type capWriter struct {
	buf bytes.Buffer
	max int
}

func (w *capWriter) Write(p []byte) (int, error) {
	if w.buf.Len()+len(p) > w.max {
		return 0, fmt.Errorf("%w (%d bytes)", ErrTooLong, w.max)
	}
	return w.buf.Write(p)
}

// tidy trims trailing spaces, collapses runs of blank lines and ends the
// text with one newline, so templates can be laid out for reading.
func tidy(md string) string {
	lines := strings.Split(md, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	md = strings.Join(lines, "\n")
	for strings.Contains(md, "\n\n\n") {
		md = strings.ReplaceAll(md, "\n\n\n", "\n\n")
	}
	return strings.TrimSpace(md) + "\n"
}

// newRunbook assembles the document.
func newRunbook(d *Data, md, source string, notes []Text) *Runbook {
	rb := &Runbook{
		ID: d.ID, Kind: d.Kind, Severity: d.Severity, SeverityReason: d.SeverityReason,
		MTTRTarget: d.MTTR, URL: d.URL, Markdown: md, Generic: d.Generic, Source: source,
		Title: d.KindName,
	}
	if !d.Generic {
		rb.Service = d.Service.raw()
		rb.Title = d.KindName + " in " + d.Service.raw()
	}
	for _, n := range notes {
		rb.Notes = append(rb.Notes, n.raw())
	}
	return rb
}
