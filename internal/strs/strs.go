// Package strs gives strings memory of their own.
//
// A string cut from a bigger one (a record decoded from a store's block,
// or from a copy of its whole encoding) keeps all of it in memory, and
// an empty one cut from it does too: its pointer still points into it.
package strs

import "strings"

// Together gives the strings ps point at copies of their own, laid one
// after the other, in order, in one allocation; an empty one becomes ""
// (pointing at nothing).
func Together(ps ...*string) {
	n := 0
	for _, p := range ps {
		n += len(*p)
	}
	var b strings.Builder
	b.Grow(n)
	for _, p := range ps {
		b.WriteString(*p)
	}
	all, at := b.String(), 0
	for _, p := range ps {
		if *p == "" {
			*p = ""
			continue
		}
		*p, at = all[at:at+len(*p)], at+len(*p)
	}
}
