package ingest

import "strings"

// field is a record field that detection fills from differently named keys.
type field uint8

const (
	fieldNone field = iota
	fieldTrace
	fieldSpan
	fieldParent
	fieldTime
	fieldLevel
	fieldSeverityNumber
	fieldMessage
	fieldService
	fieldName
)

// aliasOf is the one alias table of ingest: it maps a key as loggers and
// shippers write it (any case) to the field it names and a priority (lower
// wins when one record carries several aliases of a field). Keys not in the
// table stay attributes.
func aliasOf(key string) (field, int) {
	k := lowerASCII(key)
	switch k {
	case "trace_id", "traceid", "trace.id", "oteltraceid", "trace-id", "otel.trace_id":
		return fieldTrace, 0
	case "dd.trace_id", "x-b3-traceid", "x_b3_traceid", "b3.traceid", "logging.googleapis.com/trace", "traceidhex":
		return fieldTrace, 1
	case "span_id", "spanid", "span.id", "otelspanid", "span-id", "otel.span_id":
		return fieldSpan, 0
	case "dd.span_id", "x-b3-spanid", "x_b3_spanid", "b3.spanid", "logging.googleapis.com/spanid":
		return fieldSpan, 1
	case "parent_span_id", "parentspanid", "parent_id", "parentid", "parent.id", "parent-span-id", "x-b3-parentspanid":
		return fieldParent, 0
	case "time", "timestamp", "@timestamp", "ts", "@t", "datetime", "timeunixnano", "time_unix_nano":
		return fieldTime, 0
	case "t", "date", "eventtime", "event_time", "logtime", "log_time", "time_local":
		return fieldTime, 1
	case "level", "severity", "lvl", "loglevel", "log.level", "log_level", "@l", "levelname", "severitytext", "severity_text":
		return fieldLevel, 0
	case "detected_level", "level_name":
		return fieldLevel, 1
	case "level_value", "severitynumber", "severity_number":
		return fieldSeverityNumber, 0
	case "msg", "message", "@m", "body":
		return fieldMessage, 0
	case "text", "log", "event", "short_message", "@mt", "full_message":
		return fieldMessage, 1
	case "service", "service.name", "service_name", "servicename", "dd.service", "resource.service.name",
		"otelservicename", "resource.attributes.service.name", "otel.service.name":
		return fieldService, 0
	case "app", "application", "app_name", "appname", "application_name", "component":
		return fieldService, 1
	case "name":
		return fieldService, 2 // bunyan and pino put the application's name here
	case "logger", "logger_name", "loggername", "log.logger", "caller", "source", "func":
		return fieldName, 0
	}
	return fieldNone, 0
}

// attrKeyOf renames attribute keys to their OpenTelemetry semantic
// convention where a common logger spelling has one; other keys pass through.
func attrKeyOf(key string) string {
	switch lowerASCII(key) {
	case "http.status_code", "http.status", "status_code", "statuscode", "http_status", "response.status_code", "http.response.status_code":
		return "http.response.status_code"
	case "grpc.code", "grpc_code", "rpc.grpc.status_code":
		return "rpc.grpc.status_code"
	case "version", "app.version", "service.version", "service_version", "dd.version":
		return "service.version"
	case "host", "hostname", "host.name":
		return "host.name"
	case "pod", "pod_name", "k8s.pod.name", "kubernetes.pod_name", "kubernetes.pod.name":
		return "k8s.pod.name"
	case "namespace", "k8s.namespace.name", "kubernetes.namespace_name":
		return "k8s.namespace.name"
	case "node", "node_name", "k8s.node.name", "kubernetes.host":
		return "k8s.node.name"
	case "container", "container_name", "k8s.container.name", "kubernetes.container_name":
		return "k8s.container.name"
	case "stack_trace", "stacktrace", "stack", "exception.stacktrace":
		return "exception.stacktrace"
	case "error", "err", "error.message", "exception.message", "exc_info":
		return "exception.message"
	case "error.type", "error.kind", "exception.type", "exception.class", "exception_class":
		return "exception.type"
	case "peer.service", "peer_service", "upstream", "upstream_service":
		return "peer.service"
	case "env", "environment", "dd.env", "deployment.environment":
		return "deployment.environment"
	case "filename", "file", "log.file.path":
		return "log.file.path"
	}
	return key
}

// lowerASCII lowercases ASCII letters, allocating only when needed.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			return strings.ToLower(s)
		}
	}
	return s
}
