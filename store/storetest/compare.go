package storetest

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
)

// diffRecord describes how got differs from want, field by field; "" when
// equal. Times compare with Equal (location is not kept) and a nil Attrs
// equals an empty one (not every backend can tell them apart). Values in
// the description are shortened.
func diffRecord(want, got schema.Record) string {
	var d []string
	add := func(field string, w, g any) {
		d = append(d, fmt.Sprintf("%s: want %s, got %s", field, short(w), short(g)))
	}
	if !want.Time.Equal(got.Time) {
		add("Time", want.Time.Format(time.RFC3339Nano), got.Time.Format(time.RFC3339Nano))
	}
	if !maps.Equal(want.Attrs, got.Attrs) {
		add("Attrs", want.Attrs, got.Attrs)
	}
	wv, gv := reflect.ValueOf(want), reflect.ValueOf(got)
	for i := range wv.NumField() {
		name := wv.Type().Field(i).Name
		if name == "Time" || name == "Attrs" {
			continue
		}
		if w, g := wv.Field(i).Interface(), gv.Field(i).Interface(); w != g {
			add(name, w, g)
		}
	}
	return strings.Join(d, "; ")
}

// short formats v for a message, at most about 80 characters.
func short(v any) string {
	s := fmt.Sprintf("%#v", v)
	if len(s) > 80 {
		s = s[:60] + fmt.Sprintf("…(%d bytes)", len(s))
	}
	return s
}

// sameRecords checks got against want ignoring order; records are matched
// by Body, which the sub-tests keep unique.
func sameRecords(t *testing.T, want, got []schema.Record) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d records, want %d: %s", len(got), len(want), short(bodies(got)))
	}
	byBody := make(map[string]schema.Record, len(got))
	for _, r := range got {
		byBody[r.Body] = r
	}
	for _, w := range want {
		g, ok := byBody[w.Body]
		if !ok {
			t.Errorf("record %s is missing", short(w.Body))
			continue
		}
		if d := diffRecord(w, g); d != "" {
			t.Errorf("record %s differs: %s", short(w.Body), d)
		}
	}
}

// bodies lists the bodies of recs, for messages and order checks.
func bodies(recs []schema.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.Body
	}
	return out
}

func equalBodies(t *testing.T, what string, got []schema.Record, want ...string) {
	t.Helper()
	if g := bodies(got); !slices.Equal(g, want) {
		t.Errorf("%s: got %q, want %q", what, g, want)
	}
}
