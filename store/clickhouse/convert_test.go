package clickhouse

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/schema"
)

// lengthText is a map as attrText has the server write it.
func lengthText(m map[string]string) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(m)) {
		fmt.Fprintf(&b, "%d:%s%d:%s", len(k), k, len(m[k]), m[k])
	}
	return b.String()
}

// TestAttrSets: a row's attributes, sent as text of lengths and bytes,
// become the record's attributes and faultline's fields whether the map
// was decoded for this row or taken from the cache, across the cache's
// generations; the stored template and signature, sent as columns of
// their own, are the record's; records of one map share it; bad text is
// an error naming it. (The server's own text of awkward maps is read back
// by the stores' round trip, storetest.)
func TestAttrSets(t *testing.T) {
	var sets attrSets
	const distinct = 3*attrSetsMax + 17
	text := func(i int) string {
		return lengthText(map[string]string{"k8s.pod.name": fmt.Sprintf("pod-%d", i%distinct), keyStatus: "2"})
	}
	for i := range 2 * distinct {
		w := row{kind: uint8(schema.TypeLog), service: "svc", body: "op x", attrs: text(i),
			hasTemplate: true, template: fmt.Sprintf("op <*> %d", i%distinct), signature: fmt.Sprint(i % distinct)}
		r, err := w.record(&sets)
		if err != nil {
			t.Fatal(err)
		}
		n := i % distinct
		if want := map[string]string{"k8s.pod.name": fmt.Sprintf("pod-%d", n)}; !maps.Equal(r.Attrs, want) {
			t.Fatalf("row %d: attrs %v, want %v", i, r.Attrs, want)
		}
		if r.Template != fmt.Sprintf("op <*> %d", n) || r.Signature != schema.Signature(fmt.Sprint(n)) || r.Status != schema.StatusError {
			t.Fatalf("row %d: template %q, signature %q, status %v", i, r.Template, r.Signature, r.Status)
		}
		if len(sets.cur) > attrSetsMax || len(sets.old) > attrSetsMax {
			t.Fatalf("row %d: cache holds %d + %d maps, over %d each", i, len(sets.cur), len(sets.old), attrSetsMax)
		}
	}
	// A map asked for often stays decoded while others pass through.
	hot := text(0)
	for i := range 4 * attrSetsMax {
		if _, err := sets.get(text(i + 1)); err != nil {
			t.Fatal(err)
		}
		if i%100 == 0 {
			sets.get(hot)
		}
	}
	if sets.cur[hot] == nil && sets.old[hot] == nil {
		t.Error("a map asked for every 100 rows fell out of the cache")
	}
	// The records of one map share it (read only, as the embedded store's
	// do); a span whose exception event adds its type gets its own.
	w := row{kind: uint8(schema.TypeLog), attrs: text(5)}
	a, _ := w.record(&sets)
	if b, _ := w.record(&sets); reflect.ValueOf(a.Attrs).UnsafePointer() != reflect.ValueOf(b.Attrs).UnsafePointer() {
		t.Error("two records of the same map were given two maps")
	}
	w = row{kind: uint8(schema.TypeSpan), attrs: text(5), eventNames: []string{exceptionEvent},
		eventAttrs: []map[string]string{{schema.AttrExceptionType: "Boom", exceptionMessage: "boom"}}}
	if e, _ := w.record(&sets); e.Body != "boom" || e.Attrs[schema.AttrExceptionType] != "Boom" || e.Attrs["k8s.pod.name"] != "pod-5" {
		t.Errorf("a span's exception: body %q, attrs %v", e.Body, e.Attrs)
	}
	if _, ok := a.Attrs[schema.AttrExceptionType]; ok {
		t.Errorf("a span's exception type was written into the map its read shares: %v", a.Attrs)
	}
	for _, bad := range []string{"1:a", "2:a1:b", "x:a1:b", ":1:b", "-1:1:b", "1:a1:", "99999999999:a"} {
		w = row{kind: uint8(schema.TypeSpan), attrs: bad}
		if _, err := w.record(&sets); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q", bad)) {
			t.Errorf("attributes %q: err %v, want an error naming them", bad, err)
		}
	}
	odd := map[string]string{"12:3": "4:5", "": "", "é:": "1:2:3", "n": "\n\x00"}
	if set, err := decodeAttrSet(lengthText(odd)); err != nil || !maps.Equal(set.attrs, odd) {
		t.Errorf("attributes with colons and digits: %v, %v; want %v", set, err, odd)
	}
	w = row{kind: uint8(schema.TypeLog), service: "svc", body: "user 42 logged in", attrs: ""}
	r, err := w.record(&sets)
	if err != nil || r.Attrs != nil || r.Template == "" {
		t.Errorf("a row without attributes: attrs %v, template %q, err %v (want no attributes and a computed template)", r.Attrs, r.Template, err)
	}
	w.hasTemplate = true // stored, and empty: kept as stored
	if r, _ := w.record(&sets); r.Template != "" || r.Signature != "" {
		t.Errorf("a stored empty template was replaced by %q (%q)", r.Template, r.Signature)
	}
}
