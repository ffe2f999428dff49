package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Format is an input format of ingest load.
type Format string

const (
	FormatOTLPLogs   Format = "otlp-logs-json"   // one ExportLogsServiceRequest per line
	FormatOTLPTraces Format = "otlp-traces-json" // one ExportTraceServiceRequest per line
	FormatLokiJSON   Format = "loki-json"        // one Loki push body per line
	FormatJSONLines  Format = "jsonl"            // one application log record per line
	FormatText       Format = "text"             // plain text lines
)

// DetectFormat tells the format of a file from its first non-blank line: a
// JSON object with resourceLogs, resourceSpans or streams at the top is an
// OTLP or Loki body, another JSON object a log record, anything else text.
// A leading UTF-8 byte order mark is ignored.
func DetectFormat(first []byte) Format {
	first = bytes.TrimSpace(trimBOM(first))
	if len(first) == 0 || first[0] != '{' {
		return FormatText
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(first, &top) != nil {
		return FormatText
	}
	switch {
	case top["resourceLogs"] != nil:
		return FormatOTLPLogs
	case top["resourceSpans"] != nil:
		return FormatOTLPTraces
	case top["streams"] != nil && bytes.HasPrefix(bytes.TrimSpace(top["streams"]), []byte("[")):
		return FormatLokiJSON
	}
	return FormatJSONLines
}

// isBodyFormat reports whether each line of f is a whole push body (capped
// by MaxBodyBytes) rather than one record (capped by MaxLineBytes).
func (f Format) isBodyFormat() bool {
	return f == FormatOTLPLogs || f == FormatOTLPTraces || f == FormatLokiJSON
}

// DecodeLine decodes one line of a file in format f into sink. For body
// formats a line that cannot be read at all counts as one bad_json reject.
func (dc *Decoder) DecodeLine(f Format, line []byte, sink RecordSink) {
	dc.decodeLine(f, line, "", sink)
}

// decodeLine is DecodeLine with a fallback service for the records of
// plain-text and JSON-lines files that name none (OTLP and Loki bodies
// carry their own).
func (dc *Decoder) decodeLine(f Format, line []byte, service string, sink RecordSink) {
	var err error
	switch f {
	case FormatOTLPLogs:
		err = dc.OTLPLogsJSON(line, sink)
	case FormatOTLPTraces:
		err = dc.OTLPTracesJSON(line, sink)
	case FormatLokiJSON:
		err = dc.LokiJSON(line, sink)
	case FormatJSONLines:
		dc.jsonLine(line, service, sink)
	case FormatText:
		dc.textLine(line, service, sink)
	default:
		err = fmt.Errorf("unknown format %q", f)
	}
	if err != nil {
		sink.Reject(ReasonBadJSON)
	}
}
