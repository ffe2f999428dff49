package ingest

import (
	"encoding/json"
	"errors"
	"unicode/utf8"
)

// errNotObject is returned for JSON that is valid but not an object.
var errNotObject = errors.New("not a JSON object")

// detectJSON parses one JSON object and routes its fields through the alias
// table: nested objects are flattened to dotted keys (up to maxDepth, deeper
// values are kept as JSON text), arrays are kept as JSON text, numbers keep
// their exact text, nulls are dropped. Keys are routed in the order written.
//
// It checks the line with validJSON (json.Valid's answers, faster), then walks it with a small scanner
// that takes keys and values as substrings of one string copy of the line:
// no map and no allocation per field (only escaped strings are decoded by
// encoding/json).
func detectJSON(line []byte, maxDepth int, d *detected) error {
	if !validJSON(line) {
		return errBadJSON
	}
	sc := jsonScanner{s: string(line)}
	return sc.top(maxDepth, d.set)
}

// top reads the object sc.s must be, handing each flattened key and value
// to set in the order written. (set is a parameter, not a field: escape
// analysis is field-insensitive, and the detected value set writes to
// should stay on the caller's stack.)
func (sc *jsonScanner) top(maxDepth int, set func(k, v string)) error {
	sc.ws()
	if sc.i >= len(sc.s) || sc.s[sc.i] != '{' {
		return errNotObject
	}
	return sc.object(set, "", maxDepth)
}

var errBadJSON = errors.New("invalid JSON")

// jsonScanner walks JSON text that json.Valid accepted.
type jsonScanner struct {
	s    string
	i    int
	d    *detected         // receives each flattened key and value, in the order written
	emit func(k, v string) // instead of d, for tests
}

func (sc *jsonScanner) set(k, v string) {
	if sc.d != nil {
		sc.d.set(k, v)
		return
	}
	sc.emit(k, v)
}

func (sc *jsonScanner) ws() {
	for sc.i < len(sc.s) {
		switch sc.s[sc.i] {
		case ' ', '\t', '\n', '\r':
			sc.i++
		default:
			return
		}
	}
}

// object reads the object at sc.i, keys prefixed with prefix.
func (sc *jsonScanner) object(set func(k, v string), prefix string, depth int) error {
	sc.i++ // '{'
	sc.ws()
	if sc.s[sc.i] == '}' {
		sc.i++
		return nil
	}
	for {
		k, err := sc.str()
		if err != nil {
			return err
		}
		if prefix != "" {
			k = prefix + "." + k
		}
		sc.ws()
		sc.i++ // ':'
		sc.ws()
		switch c := sc.s[sc.i]; {
		case c == '{' && depth > 1:
			if err := sc.object(set, k, depth-1); err != nil {
				return err
			}
		case c == '"':
			v, err := sc.str()
			if err != nil {
				return err
			}
			set(k, v)
		case c == 'n': // null
			sc.i += 4
		default:
			start := sc.i
			sc.skip()
			set(k, sc.s[start:sc.i])
		}
		sc.ws()
		if sc.s[sc.i] == '}' {
			sc.i++
			return nil
		}
		sc.i++ // ','
		sc.ws()
	}
}

// str reads the string at sc.i: a substring when it has no escapes and is
// valid UTF-8, else decoded by encoding/json (invalid bytes become U+FFFD).
func (sc *jsonScanner) str() (string, error) {
	start := sc.i + 1
	j, hi := start, byte(0)
	for j < len(sc.s) && sc.s[j] != '"' && sc.s[j] != '\\' {
		hi |= sc.s[j]
		j++
	}
	if j < len(sc.s) && sc.s[j] == '"' && (hi < utf8.RuneSelf || utf8.ValidString(sc.s[start:j])) {
		sc.i = j + 1
		return sc.s[start:j], nil
	}
	sc.skipString()
	var v string
	err := json.Unmarshal([]byte(sc.s[start-1:sc.i]), &v)
	return v, err
}

// skipString moves past the string at sc.i.
func (sc *jsonScanner) skipString() {
	j := sc.i + 1
	for j < len(sc.s) && sc.s[j] != '"' {
		if sc.s[j] == '\\' {
			j++
		}
		j++
	}
	sc.i = j + 1
}

// skip moves past the value at sc.i (kept as its JSON text by the caller).
func (sc *jsonScanner) skip() {
	switch sc.s[sc.i] {
	case '"':
		sc.skipString()
	case '{', '[':
		depth := 0
		for sc.i < len(sc.s) {
			switch sc.s[sc.i] {
			case '"':
				sc.skipString()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			sc.i++
			if depth == 0 {
				return
			}
		}
	default: // number, true, false
		for sc.i < len(sc.s) {
			switch sc.s[sc.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return
			}
			sc.i++
		}
	}
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
