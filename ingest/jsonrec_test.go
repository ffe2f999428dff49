package ingest

import (
	"bytes"
	"encoding/json"
	"maps"
	"testing"
	"unicode/utf8"
)

// refFlatten is the map-based reading detectJSON replaced, kept as the
// reference the scanner is checked against.
func refFlatten(line []byte, depth int) (map[string]string, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil || m == nil {
		return nil, false
	}
	out := map[string]string{}
	var walk func(prefix string, m map[string]json.RawMessage, depth int) bool
	walk = func(prefix string, m map[string]json.RawMessage, depth int) bool {
		for k, raw := range m {
			if prefix != "" {
				k = prefix + "." + k
			}
			if raw[0] == '{' && depth > 1 {
				var sub map[string]json.RawMessage
				if json.Unmarshal(raw, &sub) != nil || !walk(k, sub, depth-1) {
					return false
				}
				continue
			}
			switch {
			case string(raw) == "null":
			case raw[0] == '"' && bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw):
				out[k] = string(raw[1 : len(raw)-1])
			case raw[0] == '"':
				var s string
				if json.Unmarshal(raw, &s) != nil {
					return false
				}
				out[k] = s
			default:
				out[k] = string(raw)
			}
		}
		return true
	}
	return out, walk("", m, depth)
}

func scanPairs(line []byte, depth int) (map[string]string, bool) {
	if !json.Valid(line) {
		return nil, false
	}
	out := map[string]string{}
	sc := jsonScanner{s: string(line)}
	err := sc.top(depth, func(k, v string) { out[k] = v })
	return out, err == nil
}

// FuzzJSONScanner checks that the scanner reads every JSON object as
// encoding/json does (objects with a key written twice aside: encoding/json
// keeps the last value, the scanner routes both).
func FuzzJSONScanner(f *testing.F) {
	for _, s := range seedFiles(f, "jsonl") {
		for _, l := range bytes.Split(s, []byte("\n")) {
			f.Add(l)
		}
	}
	f.Add([]byte(`{"a":{"b":{"c":[1,{"d":"}"}],"e":null}},"f":"x\"y\u00e9","g":true,"h":-1.5e3, "i" : { } }`))
	f.Fuzz(func(t *testing.T, line []byte) {
		want, okW := refFlatten(line, 3)
		got, okG := scanPairs(line, 3)
		if okW != okG || !maps.Equal(want, got) && !hasDuplicateKeys(line) {
			t.Fatalf("%q: scanner %v %v, encoding/json %v %v", line, okG, got, okW, want)
		}
	})
}

// hasDuplicateKeys reports whether an object in the JSON text repeats a key.
func hasDuplicateKeys(line []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(line))
	type frame struct {
		keys   map[string]bool
		object bool
		atKey  bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.object && top.atKey {
			if k, ok := tok.(string); ok {
				if top.keys[k] {
					return true
				}
				top.keys[k] = true
				top.atKey = false
				continue
			}
		}
		if top != nil && top.object {
			top.atKey = true
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{keys: map[string]bool{}, object: true, atKey: true})
		case json.Delim('['):
			stack = append(stack, &frame{})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
	}
}
