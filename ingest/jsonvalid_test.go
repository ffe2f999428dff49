package ingest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var validCases = []string{
	`{}`, ` {"a":1} `, `{"a":"b","c":[1,2.5,-0.1e+9,true,false,null],"d":{"e":{}}}`, `[]`, `"x"`, `0`, `-0`, `1E5`,
	`{"a":"\u00e9\n\"\\\/\b\f\r\t"}`, "{\"a\":\"\xff\xfe\"}", `{"a" : 1 , "b":[ ]}`,
	``, ` `, `{`, `}`, `{"a"}`, `{"a":}`, `{"a":1,}`, `[1,]`, `{a:1}`, `{'a':1}`, `01`, `1.`, `.5`, `-`, `1e`, `1e+`,
	`+1`, `tru`, `nul`, `truex`, `{"a":1}x`, `{"a":1} {"b":2}`, "{\"a\":\"\x01\"}", `{"a":"\x"}`, `{"a":"\u12g4"}`,
	`{"a":"\u12"}`, `"abc`, `"\`, `[1 2]`, `{"a":1 "b":2}`, `NaN`, `Infinity`, `{"a":-}`, `1.5e-3`, "\ufeff{}",
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000), strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	strings.Repeat(`{"a":`, 9999) + "1" + strings.Repeat("}", 9999),
}

// TestValidJSON: validJSON answers as encoding/json.Valid on edge cases.
func TestValidJSON(t *testing.T) {
	for _, c := range validCases {
		if got, want := validJSON([]byte(c)), json.Valid([]byte(c)); got != want {
			t.Errorf("validJSON(%.60q) = %v, json.Valid says %v", c, got, want)
		}
	}
}

// FuzzValidJSON: validJSON agrees with encoding/json.Valid on any input.
func FuzzValidJSON(f *testing.F) {
	for _, c := range validCases {
		f.Add([]byte(c))
	}
	files, _ := filepath.Glob("testdata/*.jsonl")
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			f.Add([]byte(line))
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := validJSON(b), json.Valid(b); got != want {
			t.Fatalf("validJSON(%q) = %v, json.Valid says %v", b, got, want)
		}
	})
}
