package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// inputError is an error of what the client sent. Error is one plain
// sentence the client is shown (what was wrong and what to do); the
// parser's own message is kept in cause, for the server log only. It
// unwraps to kind (ErrMalformed, ErrBadEncoding, ErrNothingUsable, ...),
// which statusOf maps to a status code.
type inputError struct {
	kind  error
	msg   string
	cause error
}

func (e *inputError) Error() string { return e.msg }
func (e *inputError) Unwrap() error { return e.kind }

// badInput returns an inputError of kind with a formatted message.
func badInput(kind, cause error, format string, args ...any) error {
	return &inputError{kind: kind, msg: fmt.Sprintf(format, args...), cause: cause}
}

// causeOf is the internal detail of err for logs ("" when none).
func causeOf(err error) string {
	var ie *inputError
	if errors.As(err, &ie) && ie.cause != nil {
		return ie.cause.Error()
	}
	return ""
}

var utf8BOM = []byte{0xef, 0xbb, 0xbf}

// trimBOM drops a leading UTF-8 byte order mark, which some Windows tools
// write before JSON and text.
func trimBOM(b []byte) []byte { return bytes.TrimPrefix(b, utf8BOM) }

func isGzip(b []byte) bool { return len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b }

func looksJSON(b []byte) bool {
	b = bytes.TrimSpace(trimBOM(b))
	return len(b) > 0 && (b[0] == '{' || b[0] == '[')
}

// errGzipHint is the answer to a gzip body sent without Content-Encoding.
func errGzipHint(cause error) error {
	return badInput(ErrBadEncoding, cause, "the body looks gzip-compressed; set Content-Encoding: gzip")
}

// checkJSONBody refuses a body that is not one JSON object, with a plain
// reason; what names the expected document ("OTLP/JSON", "a Loki push").
func checkJSONBody(data []byte, what string) error {
	if isGzip(data) {
		return errGzipHint(nil)
	}
	data = bytes.TrimSpace(trimBOM(data))
	if len(data) == 0 {
		return badInput(ErrMalformed, nil, "body is not valid %s: it is empty", what)
	}
	if !json.Valid(data) {
		var v json.RawMessage
		err := json.Unmarshal(data, &v)
		return badInput(ErrMalformed, err, "body is not valid %s: %s", what, jsonReason(err))
	}
	if data[0] != '{' {
		return badInput(ErrMalformed, nil, "body is not valid %s: it must be a JSON object", what)
	}
	return nil
}

// jsonReason is a short reason for an encoding/json error.
func jsonReason(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("invalid JSON at byte %d", se.Offset)
	case errors.As(err, &te) && te.Field != "":
		return fmt.Sprintf("field %q must be %s, not %s", truncate(te.Field, 60), jsonKind(te.Type.Kind().String()), te.Value)
	case errors.As(err, &te):
		return fmt.Sprintf("the document must be %s, not %s", jsonKind(te.Type.Kind().String()), te.Value)
	}
	return "invalid JSON"
}

// jsonKind names a Go kind as a JSON type.
func jsonKind(k string) string {
	switch k {
	case "struct", "map":
		return "an object"
	case "slice", "array":
		return "an array"
	case "string":
		return "a string"
	}
	return "a " + k
}

// jsonIterError turns an error of pdata's JSON reader (valid JSON whose
// shape is not the expected document) into a plain sentence. (Its message
// names reader functions, and its byte position counts within a context
// window, not the body: neither is shown.)
func jsonIterError(what string, err error) error {
	return badInput(ErrMalformed, err, "body is not valid %s: a field has a value of the wrong type (see the OTLP/JSON encoding of the protobuf messages)", what)
}

// protoError turns a protobuf decoding error into a plain sentence, with
// a hint when the body is plainly something else.
func protoError(what string, data []byte, err error) error {
	switch {
	case isGzip(data):
		return errGzipHint(err)
	case looksJSON(data):
		return badInput(ErrMalformed, err, "body is not a valid %s; it looks like JSON: set Content-Type: application/json", what)
	}
	return badInput(ErrMalformed, err, "body is not a valid %s", what)
}
