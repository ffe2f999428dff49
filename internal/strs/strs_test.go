package strs

import (
	"strings"
	"testing"
	"unsafe"
)

// TestTogether: the strings keep their values, lie one after the other in
// memory of their own (none points into what they were cut from), and an
// empty one points at nothing.
func TestTogether(t *testing.T) {
	big := strings.Repeat("x", 100) + "span|parent|the body"
	span, empty, parent, body := big[100:104], big[104:104], big[105:111], big[112:]
	Together(&span, &empty, &parent, &body)
	if span != "span" || empty != "" || parent != "parent" || body != "the body" {
		t.Fatalf("values changed: %q %q %q %q", span, empty, parent, body)
	}
	lo, hi := uintptr(unsafe.Pointer(unsafe.StringData(big))), uintptr(unsafe.Pointer(unsafe.StringData(big)))+uintptr(len(big))
	for _, s := range []string{span, parent, body} {
		if p := uintptr(unsafe.Pointer(unsafe.StringData(s))); p >= lo && p < hi {
			t.Fatalf("%q still points into what it was cut from", s)
		}
	}
	if unsafe.StringData(empty) != nil {
		t.Fatal("the empty string points into something")
	}
	at := func(s string) uintptr { return uintptr(unsafe.Pointer(unsafe.StringData(s))) }
	if at(parent) != at(span)+4 || at(body) != at(parent)+6 {
		t.Fatal("the strings are not laid one after the other")
	}
}
