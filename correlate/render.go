package correlate

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/faultline/faultline/schema"
)

// Widths of the terminal timeline.
const (
	textMsgWidth = 160
	textSvcWidth = 22
)

// NoService is how text and pages show a record that names no service
// (a raw line a shipper sent without one); documents keep it empty.
const NoService = "(no service)"

// ShownService is svc, or NoService when it is empty.
func ShownService(svc string) string {
	if svc == "" {
		return NoService
	}
	return svc
}

// WriteText renders a Result as a compact terminal timeline: every record
// in causal order, indented by span depth, the origin and cascade marked
// with their class; then the origin, the cascade as "who failed because of
// whom", the suspect and the warnings. It returns the first write error.
func WriteText(w io.Writer, r *Result) error {
	p := &printer{w: w}
	writeHeader(p, r)
	writeTimeline(p, r)
	writeSummary(p, r)
	return p.err
}

// printer remembers the first write error and then writes nothing more.
type printer struct {
	w   io.Writer
	err error
}

func (p *printer) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

func writeHeader(p *printer, r *Result) {
	state := "ok: no error"
	if r.Failed {
		state = "FAILED"
	}
	p.printf("trace %s  %s  %s, %s, %s\n", r.TraceID, state, plural(r.Events, "record"),
		plural(len(r.Services), "service"), fmtMs(r.Duration))
	if !r.Start.IsZero() {
		p.printf("start %s\n", r.Start.UTC().Format(time.RFC3339Nano))
	}
}

func writeTimeline(p *printer, r *Result) {
	if len(r.Timeline) == 0 {
		return
	}
	p.printf("\n")
	for _, e := range r.Timeline {
		at := e.Timestamp.Add(time.Duration(e.AdjustedMs * float64(time.Millisecond)))
		off := float64(at.Sub(r.Start).Microseconds()) / 1000
		indent := strings.Repeat("  ", min(e.Depth, 12))
		sev := e.Severity
		if e.Type == "span" && sev != "ERROR" {
			sev = "span"
		}
		p.printf("%10s  %-*s %-5s %s%s\n", "+"+fmtMs(off), textSvcWidth, clip(indent+ShownService(e.Service), textSvcWidth),
			sev, mark(e), oneLine(e.Message, textMsgWidth)+extras(e))
	}
}

// mark is the role and class of a timeline entry, as a prefix.
func mark(e TimelineEntry) string {
	switch {
	case e.Role == "origin":
		return fmt.Sprintf(">>> ORIGIN [%s] ", e.Class)
	case e.Role == "cascade":
		return fmt.Sprintf("[%s] ", e.Class)
	case e.Class == "" || e.Class == schema.KindUnknown:
		return ""
	case e.Severity == "ERROR" || e.Severity == "FATAL":
		return fmt.Sprintf("[%s] ", e.Class)
	}
	return fmt.Sprintf("(signal: %s) ", e.Class)
}

func extras(e TimelineEntry) string {
	var b strings.Builder
	if e.Type == "span" {
		fmt.Fprintf(&b, "  (%s)", fmtMs(e.DurationMs))
	}
	if e.AdjustedMs != 0 {
		fmt.Fprintf(&b, "  [clock %+.1fms]", e.AdjustedMs)
	}
	return b.String()
}

func writeSummary(p *printer, r *Result) {
	p.printf("\n")
	if r.Origin == nil {
		p.printf("Origin    none: the trace has no error\n")
	} else {
		o := r.Origin
		p.printf("Origin    %s  %s  at %s%s\n          %s\n", ShownService(o.Service), o.Class,
			originClock(r, o), repeats(o.Repeats), oneLine(o.Message, textMsgWidth))
	}
	for i, c := range r.Cascade {
		label := "Cascade"
		if i > 0 {
			label = ""
		}
		p.printf("%-9s %s failed (%s) because of %s%s\n", label, ShownService(c.Service), c.Class, ShownService(c.CausedBy), repeats(c.Repeats))
	}
	if s := r.Suspect; s != nil {
		p.printf("Suspect   %s  %s\n          %s\n", ShownService(s.Service), s.Kind, s.Reason)
	}
	if len(r.Warnings) > 0 {
		p.printf("Warnings\n")
		for _, w := range r.Warnings {
			p.printf("  - %s\n", w)
		}
	}
}

// originClock is when the origin happened on the trace's corrected clock,
// as the timeline has it, and its host's clock beside it when the
// clock-skew correction moved it.
func originClock(r *Result, o *Event) string {
	var adj float64
	for _, e := range r.Timeline {
		if e.Service == o.Service && e.Timestamp.Equal(o.Timestamp) {
			adj = e.AdjustedMs
			break
		}
		if o.SpanID != "" && e.SpanID == o.SpanID && adj == 0 {
			adj = e.AdjustedMs // its span's, when its own record is cut off
		}
	}
	const clock = "15:04:05.000"
	at := o.Timestamp.UTC().Format(clock)
	if adj == 0 {
		return at
	}
	fixed := o.Timestamp.Add(time.Duration(adj * float64(time.Millisecond)))
	return fmt.Sprintf("%s  (host clock %s, corrected by %+.1fms)", fixed.UTC().Format(clock), at, adj)
}

func repeats(n int) string {
	switch n {
	case 0:
		return ""
	case 1:
		return "  (repeated once more)"
	}
	return fmt.Sprintf("  (repeated %d more times)", n)
}

// plural is "1 record", "2 records": n and noun, made plural by an s.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// oneLine keeps the first line of s, clipped to n bytes.
func oneLine(s string, n int) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i] + " …"
	}
	return clip(s, n)
}

func fmtMs(ms float64) string {
	if ms >= 10000 || ms <= -10000 {
		return fmt.Sprintf("%.2fs", ms/1000)
	}
	return fmt.Sprintf("%.1fms", ms)
}
