package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
)

// errNotObject is returned for JSON that is valid but not an object.
var errNotObject = errors.New("not a JSON object")

// detectJSON parses one JSON object and routes its fields through the alias
// table: nested objects are flattened to dotted keys (up to maxDepth, deeper
// values are kept as JSON text), arrays are kept as JSON text, numbers keep
// their exact text, nulls are dropped.
func detectJSON(line []byte, maxDepth int, d *detected) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return err
	}
	if m == nil {
		return errNotObject
	}
	return flattenRaw(d, "", m, maxDepth)
}

func flattenRaw(d *detected, prefix string, m map[string]json.RawMessage, depth int) error {
	for k, raw := range m {
		key := k
		if prefix != "" {
			key = prefix + "." + k
		}
		if len(raw) > 0 && raw[0] == '{' && depth > 1 {
			var sub map[string]json.RawMessage
			if err := json.Unmarshal(raw, &sub); err != nil {
				return err
			}
			if err := flattenRaw(d, key, sub, depth-1); err != nil {
				return err
			}
			continue
		}
		s, ok, err := rawString(raw)
		if err != nil {
			return err
		}
		if ok {
			d.set(key, s)
		}
	}
	return nil
}

// rawString renders one JSON value as an attribute string: a string
// unquoted, a number as written, anything else as its JSON text. It
// reports false for null.
func rawString(raw json.RawMessage) (string, bool, error) {
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return "", false, nil
	case raw[0] == '"':
		if bytes.IndexByte(raw, '\\') < 0 {
			return string(raw[1 : len(raw)-1]), true, nil
		}
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err == nil, err
	}
	return string(raw), true, nil
}

// flattenInto flattens a decoded map (OTLP map values) into d.
func flattenInto(d *detected, prefix string, m map[string]any, depth int) {
	for k, v := range m {
		key := k
		if prefix != "" {
			key = prefix + "." + k
		}
		if sub, ok := v.(map[string]any); ok && depth > 1 {
			flattenInto(d, key, sub, depth-1)
			continue
		}
		if s, ok := anyString(v); ok {
			d.set(key, s)
		}
	}
}

// anyString renders a decoded value as an attribute string; false for nil.
func anyString(v any) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "", false
	case string:
		return x, true
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", false
	}
	return string(b), true
}
