package ingest

import (
	"errors"
	"strconv"
	"strings"
	"time"
)

// label is one Loki stream label or structured-metadata pair.
type label struct{ name, value string }

// serviceLabelRank ranks the stream labels that name a service: lower is
// stronger. Strong labels (rank < 10) beat a service field inside the line;
// weak ones only fill in when the line names none.
func serviceLabelRank(name string) (int, bool) {
	switch name {
	case "service_name":
		return 0, true
	case "service":
		return 1, true
	case "app", "application", "app_kubernetes_io_name":
		return 2, true
	case "k8s_app", "component":
		return 10, true
	case "container", "container_name":
		return 11, true
	case "job":
		return 12, true
	}
	return 0, false
}

// lokiEntry decodes one Loki log line with its stream labels and structured
// metadata. ts is the shipper's timestamp and wins over one in the line; a
// level the line's text states at its start (levelAtStart) wins over a
// generic one (genericLevel) from the metadata or labels, which is kept as
// an attribute.
func (dc *Decoder) lokiEntry(labels, meta []label, ts time.Time, line string, sink RecordSink) {
	if len(line) > dc.lim.MaxLineBytes {
		sink.Reject(ReasonLineTooLong)
		return
	}
	var d detected
	dc.detectLine(line, &d)
	for _, m := range meta {
		d.set(m.name, m.value)
	}
	svc, rank := "", 99
	for _, l := range labels {
		if r, ok := serviceLabelRank(l.name); ok {
			if r < rank {
				svc, rank = serviceFromLabel(l.name, l.value), r
			}
			if l.name != "container" && l.name != "job" {
				continue
			}
		}
		if f, _ := aliasOf(l.name); f == fieldLevel {
			d.setIfAbsent(fieldLevel, l.name, l.value)
			continue
		}
		d.attr(l.name, l.value)
	}
	if svc != "" && (rank < 10 || !d.has[fieldService]) {
		d.has[fieldService] = false
		d.setIfAbsent(fieldService, "service", svc)
	}
	// A level the text states at its start beats a generic one from the
	// metadata or labels (info, notice, none), as in the other decoders.
	text := d.text
	if text == "" {
		text = line
	}
	d.statedLevel(text)
	dc.emit(&d, ts, sink)
}

// serviceFromLabel takes the last path element of a job label
// ("namespace/app" → "app").
func serviceFromLabel(name, v string) string {
	if name == "job" {
		if i := strings.LastIndexByte(v, '/'); i >= 0 {
			return v[i+1:]
		}
	}
	return v
}

var errBadLabels = errors.New("bad stream labels")

// parseLabels reads a Prometheus-style label set as Loki's protobuf push
// carries it: {name="value", other="v\"q"}. An empty set is "{}".
func parseLabels(s string) ([]label, error) {
	s = strings.TrimSpace(s)
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' {
		return nil, errBadLabels
	}
	s = strings.TrimSpace(s[1 : len(s)-1])
	var out []label
	for s != "" {
		eq := strings.IndexByte(s, '=')
		if eq <= 0 {
			return nil, errBadLabels
		}
		name := strings.TrimSpace(s[:eq])
		s = strings.TrimSpace(s[eq+1:])
		val, rest, err := quoted(s)
		if err != nil {
			return nil, err
		}
		out = append(out, label{name, val})
		s = strings.TrimPrefix(strings.TrimSpace(rest), ",")
		s = strings.TrimSpace(s)
	}
	return out, nil
}

// quoted reads a double-quoted string with backslash escapes at the start of s.
func quoted(s string) (val, rest string, err error) {
	if s == "" || s[0] != '"' {
		return "", "", errBadLabels
	}
	i := closingQuote(s)
	if i < 0 {
		return "", "", errBadLabels
	}
	v, err := strconv.Unquote(s[:i+1])
	if err != nil {
		return "", "", errBadLabels
	}
	return v, s[i+1:], nil
}

// closingQuote is the index of the quote that ends the double-quoted
// string at the start of s (backslash escapes skipped), or -1.
func closingQuote(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}
