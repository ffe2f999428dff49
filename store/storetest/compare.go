package storetest

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/schema"
)

// diffRecord describes how got differs from want, field by field; "" when
// equal. Times compare with Equal (location is not kept) and a nil Attrs
// equals an empty one (not every backend can tell them apart).
func diffRecord(want, got schema.Record) string {
	var d []string
	add := func(field string, w, g any) {
		d = append(d, fmt.Sprintf("%s: want %#v, got %#v", field, w, g))
	}
	if !want.Time.Equal(got.Time) {
		add("Time", want.Time.Format("2006-01-02T15:04:05.000000000Z07:00"), got.Time.Format("2006-01-02T15:04:05.000000000Z07:00"))
	}
	if !maps.Equal(want.Attrs, got.Attrs) {
		add("Attrs", want.Attrs, got.Attrs)
	}
	w, g := want, got
	w.Time, w.Attrs, g.Attrs = g.Time, nil, nil
	if !reflect.DeepEqual(w, g) {
		add("fields", w, g)
	}
	return strings.Join(d, "; ")
}

// sameRecords checks got against want ignoring order; records are matched
// by Body, which the sub-tests keep unique.
func sameRecords(t *testing.T, want, got []schema.Record) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d records, want %d: %s", len(got), len(want), bodies(got))
	}
	byBody := make(map[string]schema.Record, len(got))
	for _, r := range got {
		byBody[r.Body] = r
	}
	for _, w := range want {
		g, ok := byBody[w.Body]
		if !ok {
			t.Errorf("record %q is missing", w.Body)
			continue
		}
		if d := diffRecord(w, g); d != "" {
			t.Errorf("record %q differs: %s", w.Body, d)
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
