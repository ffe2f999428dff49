// Package strs gives strings memory of their own.
//
// A string cut from a bigger one (a record decoded from a store's block,
// or from a copy of its whole encoding) keeps all of it in memory, and
// an empty one cut from it does too: its pointer still points into it.
package strs

import "strings"

// Join is ss one after the other in a string of its own, in one
// allocation; "" (pointing at nothing) when they are all empty.
func Join(ss ...string) string {
	n := 0
	for _, s := range ss {
		n += len(s)
	}
	if n == 0 {
		return ""
	}
	var b strings.Builder
	b.Grow(n)
	for _, s := range ss {
		b.WriteString(s)
	}
	return b.String()
}

// Together gives the strings ps point at copies of their own, laid one
// after the other, in order, in one allocation (Join's); an empty one
// becomes "" (pointing at nothing).
func Together(ps ...*string) {
	var buf [4]string // the callers' few: no allocation
	ss := buf[:0]
	for _, p := range ps {
		ss = append(ss, *p)
	}
	all, at := Join(ss...), 0
	for _, p := range ps {
		if *p == "" {
			*p = ""
			continue
		}
		*p, at = all[at:at+len(*p)], at+len(*p)
	}
}
