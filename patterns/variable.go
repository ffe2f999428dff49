package patterns

// # Variables from the lines
//
// The masker knows variables by their shape (a digit, a path, a known
// top-level domain); a host of another shape ("proxyhost:80", a name under
// a country or newer domain, a bare label) stays a word, and Drain's
// routing by first token then gives each one its own group. What varies
// between lines that share a statement's constant words is a variable
// whatever its shape, so once the parts are drawn, parts of the same
// statement are merged by what their lines show (mergeVariable):
//
//   - siblings: parts equal at every position but one, with at least two
//     constant words elsewhere, merge when the words they hold there vary
//     as a variable does: one of them is already a variable, or there are
//     more than MaxVariants of them (fewer are event words; refine split
//     them on purpose);
//   - instances: parts of equal length whose templates match position by
//     position (equal, or one word matched by the other's with <*>
//     standing for any text), holding at least two constant words in
//     common, merge: where they differ, one part's lines showed that the
//     position varies;
//   - a missing variable: a part one token shorter than another's template
//     less one of its all-variable tokens (a program missing before the
//     message, a value left out), matched as instances are, joins it,
//     unless the shorter holds a variable right where the token was and
//     the longer a word after it (then the word, not the variable, is
//     what the shorter lacks).
//
// A leading field left empty (": error ...", no program before the colon)
// is matched by the same rule, since <*> stands for empty text too.
// The rounds repeat, from the merged templates, until nothing merges.

import (
	"cmp"
	"slices"
	"strings"
)

// maxVariableRounds bounds the rounds of mergeVariable; each round that
// merges nothing ends it earlier.
const maxVariableRounds = 4

// minShared is the fewest constant tokens a template must keep, outside
// the positions that vary, for another part to merge with it.
const minShared = 2

// maxCompare bounds the pairs of parts of one length that one round
// compares, so that input with no structure cannot make compact quadratic.
const maxCompare = 1 << 20

// mergeVariable merges the parts of one statement that differ only in
// positions whose words vary (see above). Parts keep their order; a merged
// part takes the place of its first member.
func (m *Miner) mergeVariable(parts [][]*leaf) [][]*leaf {
	for range maxVariableRounds {
		tmpls := make([][]string, len(parts))
		for i, p := range parts {
			tmpls[i] = partTemplate(p)
		}
		u := newUnion(len(parts))
		m.mergeSiblings(tmpls, u)
		mergeInstances(tmpls, u)
		if !u.merged {
			break
		}
		parts = u.collect(parts)
	}
	return parts
}

// partTemplate is the template publish gives a part: its leaves of the
// length that holds the most messages, merged token by token.
func partTemplate(part []*leaf) []string {
	n := len(part[0].tokens)
	if slices.ContainsFunc(part, func(l *leaf) bool { return len(l.tokens) != n }) {
		byLen := map[int]int{}
		for _, l := range part {
			byLen[len(l.tokens)] += l.count
		}
		for k, c := range byLen {
			if c > byLen[n] || (c == byLen[n] && k > n) {
				n = k
			}
		}
	}
	if len(part) == 1 {
		return part[0].tokens // read only
	}
	var tokens []string
	for _, l := range part {
		if len(l.tokens) != n {
			continue
		}
		if tokens == nil {
			tokens = slices.Clone(l.tokens)
		}
		for i, t := range tokens {
			tokens[i] = mergeToken(t, l.tokens[i])
		}
	}
	return tokens
}

// mergeSiblings merges parts equal but at one position when the words they
// hold there are a variable: one is all variable, or they are more than
// MaxVariants (counting words that match each other as one).
func (m *Miner) mergeSiblings(tmpls [][]string, u *union) {
	// Each template less one position, hashed; sorting brings together
	// the parts equal but there. The hash is a sum over positions, so
	// leaving one out costs one subtraction.
	type entry struct {
		n, p int
		h    uint64
		i    int
	}
	var entries []entry
	var hs []uint64
	for i, t := range tmpls {
		c := constants(t)
		if c < minShared {
			continue
		}
		hs = hs[:0]
		var all uint64
		for j, w := range t {
			hs = append(hs, fnvAdd(fnvOffset, w)*uint64(2*j+1))
			all += hs[j]
		}
		for p := range t {
			if c-boolInt(!isAllVariable(t[p])) >= minShared {
				entries = append(entries, entry{len(t), p, all - hs[p], i})
			}
		}
	}
	slices.SortFunc(entries, func(a, b entry) int {
		switch {
		case a.h != b.h:
			return cmp.Compare(a.h, b.h)
		case a.n != b.n:
			return a.n - b.n
		case a.p != b.p:
			return a.p - b.p
		}
		return a.i - b.i
	})
	var g []int
	for k := 0; k < len(entries); {
		e := entries[k]
		g = g[:0]
		for ; k < len(entries) && entries[k].h == e.h && entries[k].n == e.n && entries[k].p == e.p; k++ {
			g = append(g, entries[k].i)
		}
		if len(g) < 2 || !m.variesAt(tmpls, g, e.p) {
			continue
		}
		for _, i := range g[1:] {
			if equalBut(tmpls[g[0]], tmpls[i], e.p) {
				u.join(g[0], i)
			}
		}
	}
}

// variesAt reports whether the words of the parts g at position p are a
// variable.
func (m *Miner) variesAt(tmpls [][]string, g []int, p int) bool {
	var seen []string
	for _, i := range g {
		w := tmpls[i][p]
		if isAllVariable(w) {
			return true
		}
		if !slices.ContainsFunc(seen, func(s string) bool { return globMatch(s, w) || globMatch(w, s) }) {
			seen = append(seen, w)
		}
	}
	return m.cfg.MaxVariants >= 0 && len(seen) > m.cfg.MaxVariants
}

// mergeInstances joins parts whose templates match each other position
// by position, each differing word matched by a word with <*> in the other
// part (<*> standing for any text), of the same length or with one
// all-variable token more in the longer (a variable the shorter leaves
// out). The words both hold as the same constant must be at least
// minShared. Candidates come from an index of each length's templates by
// position and word, so a part is compared only with those that hold its
// first constant word, or a variable, where it does.
func mergeInstances(tmpls [][]string, u *union) {
	// Only the lengths a general template can match are indexed.
	idx := map[int]*lenIndex{}
	for _, t := range tmpls {
		if c := constants(t); c >= minShared && c < len(t) {
			idx[len(t)] = nil
			idx[len(t)-1] = nil
		}
	}
	for i, t := range tmpls {
		x, need := idx[len(t)]
		if !need || constants(t) < minShared {
			continue
		}
		if x == nil {
			x = &lenIndex{at: map[uint64][]int{}, wild: make([][]int, len(t))}
			idx[len(t)] = x
		}
		x.add(i, t)
	}
	budget := maxCompare
	for i, a := range tmpls {
		if constants(a) < minShared {
			continue
		}
		if x := idx[len(a)]; x != nil && constants(a) < len(a) {
			q := firstConstant(a, -1)
			for _, j := range x.candidates(q, a[q]) {
				if budget--; budget < 0 {
					return
				}
				if shared, ok := matchEach(a, tmpls[j]); ok && j != i && shared >= minShared {
					u.join(i, j)
				}
			}
		}
		x := idx[len(a)-1]
		if x == nil {
			continue
		}
		for p, w := range a {
			if !isAllVariable(w) {
				continue
			}
			q := firstConstant(a, p)
			bq := q
			if q > p {
				bq--
			}
			for _, j := range x.candidates(bq, a[q]) {
				if budget--; budget < 0 {
					return
				}
				b := tmpls[j]
				if p < len(b) && isAllVariable(b[p]) && !strings.Contains(a[p+1], Wildcard) {
					continue // b's variable lines up with a's: a's next word would be the one missing
				}
				s1, ok1 := matchEach(a[:p], b[:p])
				s2, ok2 := matchEach(a[p+1:], b[p:])
				if ok1 && ok2 && s1+s2 >= minShared {
					u.join(i, j)
				}
			}
		}
	}
}

// lenIndex indexes the templates of one length by the word at each
// position (hashed with the position: a collision only adds a candidate);
// wild lists, by position, those holding a variable there.
type lenIndex struct {
	at   map[uint64][]int
	wild [][]int
}

func posWord(p int, w string) uint64 {
	return fnvAdd(fnvOffset^uint64(p), w)
}

func (x *lenIndex) add(i int, t []string) {
	for p, w := range t {
		if strings.Contains(w, Wildcard) {
			x.wild[p] = append(x.wild[p], i)
		} else {
			k := posWord(p, w)
			x.at[k] = append(x.at[k], i)
		}
	}
}

// candidates lists the templates that can match the constant word w at
// position p: those holding w there, then those holding a variable there.
func (x *lenIndex) candidates(p int, w string) []int {
	at := x.at[posWord(p, w)]
	return append(at[:len(at):len(at)], x.wild[p]...)
}

// firstConstant is the first position of t, other than skip, whose token
// holds no variable; t has at least minShared such tokens.
func firstConstant(t []string, skip int) int {
	for q, w := range t {
		if q != skip && !strings.Contains(w, Wildcard) {
			return q
		}
	}
	return 0
}

// matchEach reports whether a and b, of equal length, match position by
// position: equal, or one matching the other with <*> standing for any
// text. shared counts the positions where both hold the same constant.
func matchEach(a, b []string) (shared int, ok bool) {
	for i, t := range a {
		switch {
		case t == b[i]:
			if !isAllVariable(t) {
				shared++
			}
		case globMatch(t, b[i]), globMatch(b[i], t):
		default:
			return 0, false
		}
	}
	return shared, true
}

// equalBut reports whether a and b are equal but at position p.
func equalBut(a, b []string, p int) bool {
	return slices.Equal(a[:p], b[:p]) && slices.Equal(a[p+1:], b[p+1:])
}

// constants counts the tokens of t that are not all variable.
func constants(t []string) int {
	n := 0
	for _, w := range t {
		if !isAllVariable(w) {
			n++
		}
	}
	return n
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// union is a union-find over part indexes that remembers whether anything
// merged.
type union struct {
	root   []int
	merged bool
}

func newUnion(n int) *union {
	u := &union{root: make([]int, n)}
	for i := range u.root {
		u.root[i] = i
	}
	return u
}

func (u *union) find(i int) int {
	for u.root[i] != i {
		u.root[i] = u.root[u.root[i]]
		i = u.root[i]
	}
	return i
}

// join merges the sets of a and b; the smaller index becomes the root, so
// that a merged part keeps the place of its first member.
func (u *union) join(a, b int) {
	if a, b = u.find(a), u.find(b); a != b {
		u.root[max(a, b)] = min(a, b)
		u.merged = true
	}
}

// collect concatenates the parts of each set, in order of their roots.
func (u *union) collect(parts [][]*leaf) [][]*leaf {
	out := make([][]*leaf, 0, len(parts))
	pos := make([]int, len(parts))
	for i, p := range parts {
		r := u.find(i)
		if r == i {
			pos[i] = len(out)
			out = append(out, p)
			continue
		}
		out[pos[r]] = append(out[pos[r]], p...)
	}
	return out
}

// # Recurring values
//
// A position that takes a handful of plain words (2 to MaxVariants) is
// read as part of the event (VM Paused / Resumed / Started) and splits its
// group. Values of a variable show themselves differently: the same user
// or host turns up in other statements too ("session opened for user
// news", "session closed for user news"), while an event word belongs to
// its statement. So a position whose words share at least minRecurring
// with a varying position of another statement (another skeleton, so that
// one statement in two lengths does not count) is a variable, however few
// words it took.

// minRecurring is how many words two positions must share for the values
// to be read as one variable's.
const minRecurring = 2

// maxRecurWords bounds the words kept per position, and the positions
// kept per word: a position with more words is a variable anyway, and its
// first words suffice to be recognised; the bound keeps compact linear.
const maxRecurWords = 64

// slot is one varying position of one coarse group.
type slot struct {
	g *coarse
	p int
}

// recurring lists, for each coarse group, the varying positions whose
// words recur at a varying position of another statement.
func (m *Miner) recurring() map[slot]bool {
	if m.cfg.MaxVariants < 0 {
		return nil
	}
	words := map[string][]slot{} // each plain word, where it varies
	skel := map[*coarse]uint64{}
	var small []slot // positions refine would split
	var seen []string
	for _, g := range m.groups {
		skel[g], _ = skeleton(g.tokens)
		for p, t := range g.tokens {
			if t != Wildcard {
				continue
			}
			seen = seen[:0]
			for _, l := range g.leaves {
				w := l.tokens[p]
				if strings.Contains(w, Wildcard) || slices.Contains(seen, w) {
					continue
				}
				if seen = append(seen, w); len(seen) >= maxRecurWords {
					break
				}
			}
			for _, w := range seen {
				if len(words[w]) < maxRecurWords {
					words[w] = append(words[w], slot{g, p})
				}
			}
			if len(seen) >= 2 && len(seen) <= m.cfg.MaxVariants {
				small = append(small, slot{g, p})
			}
		}
	}
	out := map[slot]bool{}
	for _, s := range small {
		shared := map[slot]int{}
		seen = seen[:0]
		for _, l := range s.g.leaves {
			w := l.tokens[s.p]
			if slices.Contains(seen, w) {
				continue
			}
			seen = append(seen, w)
			for _, o := range words[w] {
				if skel[o.g] == skel[s.g] {
					continue
				}
				if shared[o]++; shared[o] >= minRecurring {
					out[s] = true
				}
			}
		}
	}
	return out
}
