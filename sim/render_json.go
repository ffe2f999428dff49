package sim

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/faultline/faultline/schema"
)

// jsonObj appends one JSON object field by field, in the order a logger
// writes them; values are escaped by encoding/json.
type jsonObj struct{ b []byte }

func (o *jsonObj) key(k string) {
	if len(o.b) == 0 || o.b[len(o.b)-1] != '{' {
		o.b = append(o.b, ',')
	}
	o.b = appendJSONString(o.b, k)
	o.b = append(o.b, ':')
}

func (o *jsonObj) str(k, v string) {
	o.key(k)
	o.b = appendJSONString(o.b, v)
}

func (o *jsonObj) opt(k, v string) {
	if v != "" {
		o.str(k, v)
	}
}

func (o *jsonObj) raw(k, v string) {
	o.key(k)
	o.b = append(o.b, v...)
}

// appendJSONString appends s as a JSON string, through encoding/json
// unless it needs no escaping.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// recordAttrs are a record's own attributes with the key a logger would use.
func recordAttrs(o *jsonObj, rec *schema.Record, rename func(string) string) {
	for _, k := range sortedKeys(rec.Attrs) {
		if isResourceAttr(k) || k == "exception.stacktrace" {
			continue
		}
		o.str(rename(k), rec.Attrs[k])
	}
}

func same(k string) string { return k }

// renderJSON appends rec as the JSON line of n's logger.
func renderJSON(b []byte, n *node, rec *schema.Record, ids64 bool) []byte {
	o := &jsonObj{b: append(b, '{')}
	switch n.format {
	case fmtZap:
		zapLine(o, n, rec)
	case fmtLogrus:
		logrusLine(o, n, rec)
	case fmtSlog:
		slogLine(o, n, rec)
	case fmtLogstash:
		logstashLine(o, n, rec)
	case fmtDatadog:
		datadogLine(o, n, rec)
	case fmtPythonJSON:
		pythonJSONLine(o, n, rec)
	default:
		pinoLine(o, n, rec)
	}
	return append(o.b, '}')
}

func zapLine(o *jsonObj, n *node, rec *schema.Record) {
	o.str("level", rec.SeverityText)
	o.raw("ts", strconv.FormatFloat(float64(rec.Time.UnixMicro())/1e6, 'f', 6, 64))
	o.opt("caller", rec.Name)
	o.str("msg", rec.Body)
	o.str("service", n.name)
	o.str("version", rec.Attrs[schema.AttrServiceVersion])
	o.opt("trace_id", string(rec.TraceID))
	o.opt("span_id", string(rec.SpanID))
	recordAttrs(o, rec, same)
	o.opt("stacktrace", rec.Attrs["exception.stacktrace"])
}

func logrusLine(o *jsonObj, n *node, rec *schema.Record) {
	o.str("level", rec.SeverityText)
	o.str("msg", rec.Body)
	o.str("time", rec.Time.UTC().Format("2006-01-02T15:04:05.000000Z07:00"))
	o.str("service", n.name)
	o.str("version", rec.Attrs[schema.AttrServiceVersion])
	o.opt("traceID", string(rec.TraceID))
	o.opt("spanID", string(rec.SpanID))
	recordAttrs(o, rec, logrusKey)
	o.opt("stack", rec.Attrs["exception.stacktrace"])
}

// logrusKey is the field name a logrus service uses for an attribute.
func logrusKey(k string) string {
	switch k {
	case schema.AttrHTTPStatus:
		return "status_code"
	case schema.AttrPeerService:
		return "upstream"
	}
	return strings.ReplaceAll(k, ".", "_")
}

func slogLine(o *jsonObj, n *node, rec *schema.Record) {
	o.str("time", rec.Time.UTC().Format("2006-01-02T15:04:05.999999999Z07:00"))
	o.str("level", rec.SeverityText)
	o.opt("source", rec.Name)
	o.str("msg", rec.Body)
	o.str("service.name", n.name)
	o.str("service.version", rec.Attrs[schema.AttrServiceVersion])
	o.opt("trace_id", string(rec.TraceID))
	o.opt("span_id", string(rec.SpanID))
	recordAttrs(o, rec, same)
	o.opt("stack", rec.Attrs["exception.stacktrace"])
}

func logstashLine(o *jsonObj, n *node, rec *schema.Record) {
	o.str("@timestamp", rfc3339ms(rec.Time))
	o.str("@version", "1")
	o.str("message", rec.Body)
	o.str("logger_name", rec.Name)
	o.str("thread_name", threadName(rec))
	o.str("level", rec.SeverityText)
	o.raw("level_value", strconv.Itoa(logbackLevelValue(rec.Severity)))
	o.opt("traceId", string(rec.TraceID))
	o.opt("spanId", string(rec.SpanID))
	o.str("app", n.name)
	o.str("version", rec.Attrs[schema.AttrServiceVersion])
	recordAttrs(o, rec, same)
	o.opt("stack_trace", rec.Attrs["exception.stacktrace"])
}

func logbackLevelValue(sev schema.Severity) int {
	switch sev.String() {
	case "WARN":
		return 30000
	case "ERROR", "FATAL":
		return 40000
	case "DEBUG":
		return 10000
	}
	return 20000
}

// datadogLine writes Datadog's log injection: 64-bit ids as decimal strings.
func datadogLine(o *jsonObj, n *node, rec *schema.Record) {
	o.str("timestamp", rfc3339ms(rec.Time))
	o.str("level", rec.SeverityText)
	o.str("message", rec.Body)
	o.opt("logger.name", rec.Name)
	o.str("dd.service", n.name)
	o.str("dd.env", "prod")
	o.str("dd.version", rec.Attrs[schema.AttrServiceVersion])
	if rec.TraceID != "" {
		o.str("dd.trace_id", decimal64(string(rec.TraceID)))
		o.str("dd.span_id", decimal64(string(rec.SpanID)))
	}
	recordAttrs(o, rec, same)
	o.opt("error.stack", rec.Attrs["exception.stacktrace"])
}

// decimal64 writes the low 64 bits of a hex id in decimal.
func decimal64(h string) string {
	if len(h) > 16 {
		h = h[len(h)-16:]
	}
	v, _ := strconv.ParseUint(h, 16, 64)
	return strconv.FormatUint(v, 10)
}

func pythonJSONLine(o *jsonObj, n *node, rec *schema.Record) {
	o.str("timestamp", rec.Time.UTC().Format("2006-01-02T15:04:05.000000+00:00"))
	o.str("levelname", rec.SeverityText)
	o.str("name", rec.Name)
	o.str("message", rec.Body)
	o.str("otelServiceName", n.name)
	o.opt("otelTraceID", string(rec.TraceID))
	o.opt("otelSpanID", string(rec.SpanID))
	o.str("service_version", rec.Attrs[schema.AttrServiceVersion])
	recordAttrs(o, rec, same)
	o.opt("exc_info", rec.Attrs["exception.stacktrace"])
}

func pinoLine(o *jsonObj, n *node, rec *schema.Record) {
	o.raw("level", rec.SeverityText)
	o.raw("time", strconv.FormatInt(rec.Time.UnixMilli(), 10))
	o.raw("pid", "1")
	o.str("hostname", rec.Attrs[schema.AttrPod])
	o.str("name", n.name)
	o.str("version", rec.Attrs[schema.AttrServiceVersion])
	o.opt("trace_id", string(rec.TraceID))
	o.opt("span_id", string(rec.SpanID))
	if rec.TraceID != "" {
		o.str("trace_flags", "01")
	}
	recordAttrs(o, rec, same)
	if st := rec.Attrs["exception.stacktrace"]; st != "" {
		o.raw("err", `{"type":`+string(appendJSONString(nil, rec.Attrs[schema.AttrExceptionType]))+`,"stack":`+string(appendJSONString(nil, st))+`}`)
	}
	o.str("msg", rec.Body)
}
