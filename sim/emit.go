package sim

import (
	"time"

	"github.com/faultline/faultline/schema"
)

// line is one log record to write.
type line struct {
	at     time.Time // true time
	sev    schema.Severity
	logger string
	body   string
	fault  bool     // the fault caused it
	kv     []string // extra attributes, key then value
	cause  failure  // the failed call it reports, if any
}

// log writes a log record in scope sc. An ERROR caused by the fault marks
// the trace failed.
func (s *sim) log(sc scope, l line) {
	rec := schema.Record{
		Type:         schema.TypeLog,
		Time:         l.at.Add(sc.p.skew),
		Service:      sc.n.name,
		Severity:     l.sev,
		SeverityText: levelText(sc.n.format, l.sev),
		Body:         l.body,
		Name:         l.logger,
		Attrs:        s.attrs(sc.p, sc.n, l.at, l.kv),
	}
	if sc.tc != nil {
		rec.TraceID, rec.SpanID = sc.tc.id, sc.span
	}
	s.recs = append(s.recs, rec)
	s.meta = append(s.meta, recMeta{at: l.at, node: sc.n, pod: sc.p, fault: l.fault, cause: l.cause})
	if l.fault && l.sev >= schema.SeverityError {
		s.markFailed(sc.tc, sc.n, l.at, true)
	}
}

// spanRec is one span to write.
type spanRec struct {
	id, parent schema.SpanID
	name       string
	kind       spanKind
	start, end time.Time // true times
	failed     bool
	msg        string
	fault      bool
	kv         []string
}

// span writes a span of sc's service, when the trace and the service export spans.
func (s *sim) span(sc scope, sp spanRec) {
	exported := sc.tc != nil && sc.tc.spans && sc.n.traced
	if sp.failed && sp.fault {
		s.markFailed(sc.tc, sc.n, sp.end, exported)
	}
	if !exported {
		return
	}
	rec := schema.Record{
		Type:         schema.TypeSpan,
		Time:         sp.start.Add(sc.p.skew),
		Duration:     sp.end.Sub(sp.start),
		TraceID:      sc.tc.id,
		SpanID:       sp.id,
		ParentSpanID: sp.parent,
		Service:      sc.n.name,
		Name:         sp.name,
		Status:       schema.StatusUnset,
		Attrs:        s.attrs(sc.p, sc.n, sp.start, sp.kv),
	}
	if sp.failed {
		rec.Status, rec.Body = schema.StatusError, sp.msg
	}
	s.recs = append(s.recs, rec)
	s.meta = append(s.meta, recMeta{at: sp.start, node: sc.n, pod: sc.p, kind: sp.kind, fault: sp.fault})
}

// attrs returns the pod's resource attributes at t, plus kv. Without kv the
// map is shared with other records of the pod.
func (s *sim) attrs(p *pod, n *node, t time.Time, kv []string) map[string]string {
	v := p.version(t)
	base := p.attrs[v]
	if base == nil {
		base = map[string]string{
			schema.AttrServiceVersion: n.versions[v],
			schema.AttrHost:           p.host,
			schema.AttrPod:            p.name,
		}
		p.attrs[v] = base
	}
	if len(kv) == 0 {
		return base
	}
	m := make(map[string]string, len(base)+len(kv)/2)
	for k, x := range base {
		m[k] = x
	}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

// levelText is the level word a format writes for sev.
func levelText(f format, sev schema.Severity) string {
	switch f {
	case fmtLogrus:
		if sev >= schema.SeverityWarn && sev < schema.SeverityError {
			return "warning"
		}
		return lowerLevel(sev)
	case fmtZap, fmtLogfmt:
		return lowerLevel(sev)
	case fmtPino:
		return pinoLevel(sev)
	case fmtPythonJSON, fmtPythonText:
		if sev >= schema.SeverityWarn && sev < schema.SeverityError {
			return "WARNING"
		}
		if sev >= schema.SeverityFatal {
			return "CRITICAL"
		}
	}
	return sev.String()
}

func lowerLevel(sev schema.Severity) string {
	switch sev.String() {
	case "WARN":
		return "warn"
	case "ERROR":
		return "error"
	case "FATAL":
		return "fatal"
	case "DEBUG":
		return "debug"
	}
	return "info"
}

func pinoLevel(sev schema.Severity) string {
	switch sev.String() {
	case "WARN":
		return "40"
	case "ERROR":
		return "50"
	case "FATAL":
		return "60"
	case "DEBUG":
		return "20"
	}
	return "30"
}
