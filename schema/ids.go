package schema

import (
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
)

// TraceID is a trace id as 32 lowercase hex characters. A 64-bit id is
// left-padded with zeros, as OpenTelemetry does for Jaeger and Zipkin ids.
type TraceID string

// SpanID is a span id as 16 lowercase hex characters.
type SpanID string

// ErrBadID is returned for an id that is neither hex nor a decimal 64-bit integer.
var ErrBadID = errors.New("not a trace or span id")

// ParseTraceID normalises a trace id written as 16 or 32 hex characters
// (any case, optional dashes as in a UUID) or as a decimal 64-bit integer
// (Datadog's dd.trace_id). An all-zero id is invalid.
func ParseTraceID(s string) (TraceID, error) {
	h, err := normHex(s, 32)
	return TraceID(h), err
}

// ParseSpanID normalises a span id written as 16 hex characters or a
// decimal 64-bit integer.
func ParseSpanID(s string) (SpanID, error) {
	h, err := normHex(s, 16)
	return SpanID(h), err
}

// Short is the first 8 characters, for display.
func (t TraceID) Short() string {
	s := strings.TrimLeft(string(t), "0")
	if len(s) <= 16 && len(t) == 32 {
		s = string(t[16:])
	} else {
		s = string(t)
	}
	if len(s) > 8 {
		return s[:8]
	}
	return s
}

func normHex(s string, width int) (string, error) {
	s = strings.TrimSpace(s)
	if strings.Contains(s, "-") && len(s) == 36 {
		s = strings.ReplaceAll(s, "-", "")
	}
	if s == "" || len(s) > 32 {
		return "", ErrBadID
	}
	if isDecimal(s) && !(len(s) == 16 || len(s) == 32) {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return "", ErrBadID
		}
		s = strconv.FormatUint(n, 16)
	}
	if len(s) > width {
		return "", ErrBadID
	}
	var b [32]byte
	out := b[:width]
	pad := width - len(s)
	for i := 0; i < pad; i++ {
		out[i] = '0'
	}
	allZero := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9', c >= 'a' && c <= 'f':
		case c >= 'A' && c <= 'F':
			c += 'a' - 'A'
		default:
			return "", ErrBadID
		}
		if c != '0' {
			allZero = false
		}
		out[pad+i] = c
	}
	if allZero {
		return "", ErrBadID
	}
	return string(out), nil
}

func isDecimal(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Bytes16 decodes a trace id into 16 bytes (zero on a malformed id).
func (t TraceID) Bytes16() (b [16]byte) {
	_, _ = hex.Decode(b[:], []byte(t))
	return b
}
