package sim

// format is how a service's logs reach faultline: the logger's conventions
// and, with the shipper, the file they end up in.
type format uint8

const (
	fmtOTLP        format = iota // OTel SDK → Collector file exporter (ExportLogsServiceRequest)
	fmtZap                       // zap JSON: ts (unix float), level, msg, trace_id
	fmtLogrus                    // logrus JSON: time, level, msg, traceID
	fmtSlog                      // log/slog JSON: time, level, msg, trace_id
	fmtLogstash                  // logstash-logback-encoder: @timestamp, level, message, traceId
	fmtDatadog                   // JSON with dd.trace_id / dd.span_id as decimal 64-bit ids
	fmtPythonJSON                // python-json-logger with OTel's otelTraceID
	fmtPino                      // pino JSON: time (unix ms), level as a number, msg, trace_id
	fmtSpringText                // Spring Boot / Sleuth text: [app,traceId,spanId]
	fmtTrainTicket               // Spring text with "TraceID: x SpanID: y"
	fmtLogfmt                    // Go logfmt: time=… level=… msg=… trace_id=…
	fmtPythonText                // Python logging text with trace_id= span_id=
	fmtTraceparent               // text with a W3C traceparent=00-…-…-01
)

// formatsFor lists the formats a stack may use; dd adds Datadog's.
func formatsFor(s stack, dd bool) []format {
	var out []format
	switch s {
	case stackGo:
		out = []format{fmtOTLP, fmtZap, fmtLogrus, fmtSlog, fmtLogfmt, fmtTraceparent}
	case stackJava:
		out = []format{fmtOTLP, fmtLogstash, fmtSpringText, fmtTrainTicket}
	case stackPython:
		out = []format{fmtOTLP, fmtPythonJSON, fmtPythonText, fmtTraceparent}
	default:
		out = []format{fmtOTLP, fmtPino, fmtTraceparent}
	}
	if dd && (s == stackGo || s == stackJava) {
		out = append(out, fmtDatadog)
	}
	return out
}

// isJSON reports whether the format writes JSON lines.
func (f format) isJSON() bool {
	switch f {
	case fmtZap, fmtLogrus, fmtSlog, fmtLogstash, fmtDatadog, fmtPythonJSON, fmtPino:
		return true
	}
	return false
}

// String names the format as truth.json and tests refer to it.
func (f format) String() string {
	names := [...]string{"otlp", "zap", "logrus", "slog", "logstash", "datadog", "python-json",
		"pino", "spring-text", "trainticket-text", "logfmt", "python-text", "traceparent-text"}
	if int(f) < len(names) {
		return names[f]
	}
	return "unknown"
}

// needsLabels reports whether the format's lines do not name their service,
// so that only a shipper's labels (Loki's service_name) can: such services
// are shipped to Loki, as their container logs would be.
func (f format) needsLabels() bool {
	switch f {
	case fmtPino, fmtSpringText, fmtTrainTicket, fmtLogfmt, fmtPythonText, fmtPythonJSON:
		return true
	}
	return false
}
