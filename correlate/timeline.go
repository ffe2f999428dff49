package correlate

import (
	"maps"

	"github.com/faultline/faultline/schema"
)

// timeline lists every kept record in causal order.
func timeline(t *Trace) []TimelineEntry {
	out := make([]TimelineEntry, 0, len(t.order))
	for k, i := range t.order {
		e := &t.ents[i]
		r := t.rec(i)
		te := TimelineEntry{
			Index:      k,
			Type:       r.Type.String(),
			Timestamp:  r.Time,
			AdjustedMs: float64(e.adj.Microseconds()) / 1000,
			Depth:      t.depth(i),
			Service:    t.svcs[e.svc].name,
			SpanID:     r.SpanID,
			ParentID:   r.ParentSpanID,
			Severity:   severityOf(r),
			Message:    r.Body,
			Class:      e.class,
			Role:       roleName(e.role),
			Attrs:      maps.Clone(r.Attrs),
		}
		if r.Type == schema.TypeSpan {
			te.Message = r.Name
			if r.Body != "" {
				te.Message = r.Name + ": " + r.Body
			}
			te.DurationMs = float64(r.Duration.Microseconds()) / 1000
		}
		out = append(out, te)
	}
	return out
}

func severityOf(r *schema.Record) string {
	if r.Type == schema.TypeSpan {
		switch r.Status {
		case schema.StatusError:
			return "ERROR"
		case schema.StatusOK:
			return "OK"
		}
		return "UNSET"
	}
	if r.SeverityText != "" && r.Severity == schema.SeverityUnspecified {
		return r.SeverityText
	}
	return r.Severity.String()
}

func roleName(r uint8) string {
	switch r {
	case roleOrigin:
		return "origin"
	case roleCascade:
		return "cascade"
	}
	return ""
}
