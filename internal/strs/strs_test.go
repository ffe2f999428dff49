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

func TestJoin(t *testing.T) {
	big := "xx" + "trace" + "span"
	got := Join(big[2:7], "", big[7:])
	if got != "tracespan" {
		t.Fatalf("Join = %q", got)
	}
	lo := uintptr(unsafe.Pointer(unsafe.StringData(big)))
	if p := uintptr(unsafe.Pointer(unsafe.StringData(got))); p >= lo && p < lo+uintptr(len(big)) {
		t.Fatal("Join's string points into what it was cut from")
	}
	if one := Join("", big[2:7]); uintptr(unsafe.Pointer(unsafe.StringData(one))) == lo+2 {
		t.Fatal("Join of one string gives that string, not a copy")
	}
	if empty := Join(big[2:2], ""); empty != "" || unsafe.StringData(empty) != nil {
		t.Fatal("Join of empty strings points into something")
	}
}

func TestTogetherAllocatesOnce(t *testing.T) {
	src := strings.Repeat("s", 40)
	n := testing.AllocsPerRun(100, func() {
		a, b, c := src[0:10], src[10:20], src[20:40]
		Together(&a, &b, &c)
	})
	if n != 1 {
		t.Fatalf("Together made %v allocations, not one", n)
	}
}
