package sim

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/faultline/faultline/schema"
)

// renderText appends rec as the text line of n's logger; a stack trace
// follows on the next lines, as the shipper's multiline stage keeps it.
func renderText(b []byte, n *node, rec *schema.Record) []byte {
	switch n.format {
	case fmtSpringText:
		b = springLine(b, n, rec)
	case fmtTrainTicket:
		b = trainTicketLine(b, rec)
	case fmtLogfmt:
		b = logfmtLine(b, n, rec)
	case fmtPythonText:
		b = pythonTextLine(b, n, rec)
	default:
		b = traceparentLine(b, n, rec)
	}
	if st := rec.Attrs["exception.stacktrace"]; st != "" {
		b = append(b, '\n')
		b = append(b, st...)
	}
	return b
}

// springLine is Spring Boot's console pattern with Sleuth's [app,trace,span].
func springLine(b []byte, n *node, rec *schema.Record) []byte {
	b = rec.Time.UTC().AppendFormat(b, "2006-01-02 15:04:05.000")
	b = fmt.Appendf(b, " %5s [%s,%s,%s] 1 --- [%15s] %-40s : %s", rec.SeverityText, n.name, rec.TraceID, rec.SpanID,
		tail(threadName(rec), 15), abbreviate(rec.Name, 39), rec.Body)
	return b
}

// trainTicketLine writes the time of day only; the date is the shipper's.
func trainTicketLine(b []byte, rec *schema.Record) []byte {
	b = rec.Time.UTC().AppendFormat(b, "15:04:05.000")
	b = fmt.Appendf(b, " %-5s %s#%d", rec.SeverityText, abbreviate(rec.Name, 30), 40+len(rec.Body)%300)
	if rec.TraceID != "" {
		b = fmt.Appendf(b, " TraceID: %s SpanID: %s", rec.TraceID, rec.SpanID)
	}
	return fmt.Appendf(b, " [%s]", rec.Body)
}

func logfmtLine(b []byte, n *node, rec *schema.Record) []byte {
	b = append(b, "time="...)
	b = rec.Time.UTC().AppendFormat(b, "2006-01-02T15:04:05.000Z07:00")
	b = append(b, " level="...)
	b = append(b, rec.SeverityText...)
	b = append(b, " msg="...)
	b = logfmtValue(b, rec.Body)
	b = append(b, " service="...)
	b = append(b, n.name...)
	if rec.TraceID != "" {
		b = fmt.Appendf(b, " trace_id=%s span_id=%s", rec.TraceID, rec.SpanID)
	}
	for _, k := range sortedKeys(rec.Attrs) {
		if isResourceAttr(k) || k == "exception.stacktrace" {
			continue
		}
		b = append(b, ' ')
		b = append(b, k...)
		b = append(b, '=')
		b = logfmtValue(b, rec.Attrs[k])
	}
	return b
}

func logfmtValue(b []byte, v string) []byte {
	if v != "" && !strings.ContainsAny(v, " \"=\t\n\\") {
		return append(b, v...)
	}
	return strconv.AppendQuote(b, v)
}

// pythonTextLine is OpenTelemetry's logging format for Python (trace_id=0 outside spans).
func pythonTextLine(b []byte, n *node, rec *schema.Record) []byte {
	b = rec.Time.UTC().AppendFormat(b, "2006-01-02 15:04:05,000")
	tid, sid, sampled := string(rec.TraceID), string(rec.SpanID), "True"
	if tid == "" {
		tid, sid, sampled = "0", "0", "False"
	}
	return fmt.Appendf(b, " %s [%s] [trace_id=%s span_id=%s resource.service.name=%s trace_sampled=%s] - %s",
		rec.SeverityText, rec.Name, tid, sid, n.name, sampled, rec.Body)
}

// traceparentLine carries the W3C traceparent of the record's span.
func traceparentLine(b []byte, n *node, rec *schema.Record) []byte {
	b = rec.Time.UTC().AppendFormat(b, "2006-01-02T15:04:05.000Z07:00")
	b = fmt.Appendf(b, " [%s] service=%s %s", rec.SeverityText, n.name, rec.Body)
	if rec.TraceID != "" {
		b = fmt.Appendf(b, " traceparent=00-%s-%s-01", rec.TraceID, rec.SpanID)
	}
	return b
}

// abbreviate shortens a Java logger name as logback's %logger{n} does.
func abbreviate(name string, n int) string {
	if len(name) <= n {
		return name
	}
	parts := strings.Split(name, ".")
	for i := 0; i < len(parts)-1 && len(strings.Join(parts, ".")) > n; i++ {
		parts[i] = parts[i][:1]
	}
	return strings.Join(parts, ".")
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}
