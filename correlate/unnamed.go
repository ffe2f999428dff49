package correlate

import (
	"strings"

	"github.com/faultline/faultline/schema"
)

// serviceOf is the service a record belongs to: its Service field, else,
// for a plain-text line shipped without one, the name the line itself
// carries: a "service.name=X" or "service=X" field, or the logger prefix
// of "[ERROR] X: ..." / "ERROR X: ...". "" when nothing names it: such a
// record is never preferred as a suspect over a named service.
func serviceOf(r *schema.Record) string {
	if r.Service != "" || r.Type != schema.TypeLog || r.Body == "" {
		return r.Service
	}
	b := r.Body[:min(len(r.Body), 400)]
	for _, k := range [...]string{"service.name=", "service_name=", "service="} {
		if i := strings.Index(b, k); i >= 0 && (i == 0 || !isLetter(b[i-1]) || k == "service.name=") {
			if tok := serviceToken(b[i+len(k):]); tok != "" {
				return tok
			}
		}
	}
	return loggerAfterLevel(b)
}

// loggerAfterLevel reads X in "LEVEL X: " or "[LEVEL] X: ", the prefix
// most line formats give the emitting service or logger.
func loggerAfterLevel(b string) string {
	for _, lv := range [...]string{"ERROR", "WARN", "WARNING", "INFO", "DEBUG", "FATAL", "CRITICAL", "TRACE"} {
		i := strings.Index(b, lv)
		if i < 0 {
			continue
		}
		rest := b[i+len(lv):]
		rest = strings.TrimPrefix(rest, "]")
		if !strings.HasPrefix(rest, " ") {
			continue
		}
		rest = rest[1:]
		tok := serviceToken(rest)
		if tok != "" && strings.HasPrefix(rest[len(tok):], ": ") {
			return tok
		}
	}
	return ""
}

// serviceToken reads a service-like name at the start of b: letters,
// digits, '-', '_' and '.', starting with a letter.
func serviceToken(b string) string {
	b = strings.TrimLeft(b, "\"'")
	if b == "" || !isLetter(b[0]) {
		return ""
	}
	j := 1
	for j < len(b) && (isLetter(b[j]) || isDigit(b[j]) || b[j] == '-' || b[j] == '_' || b[j] == '.') {
		j++
	}
	return strings.TrimRight(b[:j], ".-_")
}
