package patterns

import "strings"

// # Optional segments
//
// A short segment that a logger writes only sometimes (a parenthesised
// size, "(took 3ms)", a "[pid <*>]") changes the number of tokens, so the
// lines with it and those without fall into different coarse groups. When
// the final parts are drawn, parts whose templates are equal once such
// segments are taken out (their skeleton) and that differ in length merge
// into one: the segment was optional, not a different event. A skeleton
// seen in one length only merges nothing: refine split those parts on
// purpose.

// maxOptionalRun is the most tokens an optional bracketed segment spans.
const maxOptionalRun = 4

// skeleton hashes the template of tokens without its optional segments:
// runs of at most maxOptionalRun tokens from an opening to a closing
// bracket that hold a variable, tokens that are all variable ("<*>",
// "*<*>"), and a leading program token (see isProgram). ok is false when
// fewer than two constant tokens are left, too little to say two messages
// are one. It hashes rather than builds the text, so that compact does not
// allocate for every leaf.
func skeleton(tokens []string) (uint64, bool) {
	h, kept, i := fnvOffset, 0, 0
	if len(tokens) > 1 && isProgram(tokens) {
		i = 1 // the program may differ too
	}
	for ; i < len(tokens); i++ {
		if n := optionalRun(tokens[i:]); n > 0 {
			i += n - 1
			continue
		}
		h = (fnvAdd(h, tokens[i]) ^ 0) * fnvPrime
		kept++
	}
	return h, kept >= 2
}

// optionalRun returns how many tokens at the start of ts form an optional
// segment, or 0.
func optionalRun(ts []string) int {
	t := ts[0]
	if isAllVariable(t) {
		return 1
	}
	if t == "" || strings.IndexByte("([{", t[0]) < 0 {
		return 0
	}
	closer := byte(')')
	switch t[0] {
	case '[':
		closer = ']'
	case '{':
		closer = '}'
	}
	wild := false
	for i := 0; i < len(ts) && i < maxOptionalRun; i++ {
		w := strings.TrimRight(ts[i], ",;:.")
		wild = wild || strings.Contains(w, Wildcard)
		if i > 0 && strings.IndexByte(w, t[0]) >= 0 {
			return 0 // a nested or second group: not a short segment
		}
		if w != "" && w[len(w)-1] == closer && (i > 0 || len(w) > 1) {
			if wild {
				return i + 1
			}
			return 0
		}
	}
	return 0
}

// isAllVariable reports a token that is variables and punctuation only.
func isAllVariable(t string) bool {
	wild := false
	for i := 0; i < len(t); i++ {
		if strings.HasPrefix(t[i:], Wildcard) {
			wild = true
			i += len(Wildcard) - 1
			continue
		}
		if c := t[i]; isLetter(c) || (c >= '0' && c <= '9') || c >= 0x80 {
			return false
		}
	}
	return wild
}

// mergeOptional merges the parts whose leaves share a skeleton that comes
// in two lengths or more, comparing leaves rather than part templates
// (Drain's coarse groups can align two shapes badly). Parts keep their
// order; a merged part takes the place of its first member.
func mergeOptional(parts [][]*leaf) [][]*leaf {
	type first struct {
		length, part int
		lengths      bool // more than one length has this skeleton
	}
	seen := map[uint64]first{}
	var keys []uint64 // each leaf's skeleton, 0 for none, in part order
	for i, p := range parts {
		for _, l := range p {
			key, ok := skeleton(l.tokens)
			if !ok {
				key = 0
			} else if f, dup := seen[key]; !dup {
				seen[key] = first{length: len(l.tokens), part: i}
			} else if f.length != len(l.tokens) && !f.lengths {
				f.lengths = true
				seen[key] = f
			}
			keys = append(keys, key)
		}
	}
	root := make([]int, len(parts))
	for i := range root {
		root[i] = i
	}
	find := func(i int) int {
		for root[i] != i {
			root[i] = root[root[i]]
			i = root[i]
		}
		return i
	}
	merged, k := false, 0
	for i, p := range parts {
		for range p {
			if f, ok := seen[keys[k]]; ok && f.lengths {
				if a, b := find(f.part), find(i); a != b {
					root[max(a, b)] = min(a, b)
					merged = true
				}
			}
			k++
		}
	}
	if !merged {
		return parts
	}
	out := make([][]*leaf, 0, len(parts))
	pos := make([]int, len(parts))
	for i, p := range parts {
		r := find(i)
		if r == i {
			pos[i] = len(out)
			out = append(out, p)
			continue
		}
		out[pos[r]] = append(out[pos[r]], p...)
	}
	return out
}
