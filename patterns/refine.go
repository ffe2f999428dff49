package patterns

import (
	"slices"
	"strings"
)

// compact rebuilds the final templates when something was added since the
// last time: each coarse group is split where it mixes a handful of event
// words (refine), and the parts whose template texts are equal merge.
func (m *Miner) compact() {
	if !m.dirty && m.final != nil {
		return
	}
	m.dirty = false
	m.final = map[string]*Template{}
	var parts [][]*leaf
	rec := m.recurring()
	for _, g := range m.groups {
		parts = append(parts, m.refine(g, rec)...)
	}
	for _, part := range m.mergeVariable(mergeOptional(parts)) {
		m.publish(part)
	}
}

// publish makes one final template of a set of leaves and points each leaf
// at it; a template text already published absorbs the part. A part
// whose leaves differ in length (an optional segment) takes the template
// of the length that holds the most messages.
func (m *Miner) publish(part []*leaf) {
	count := 0
	for _, l := range part {
		count += l.count
	}
	tokens := partTemplate(part)
	text := strings.Join(tokens, " ")
	id := TemplateID(text)
	t, ok := m.final[id]
	if !ok {
		t = &Template{ID: id, Template: text}
		m.final[id] = t
	}
	t.Count += count
	for _, l := range part {
		l.final = t
	}
}

// refine splits a coarse group's leaves by their words at the positions
// that take few distinct words (event words, not variables). A position
// where some leaf holds a masked <*> is a variable. Parts keep the order in
// which their first leaf arrived.
func (m *Miner) refine(g *coarse, rec map[slot]bool) [][]*leaf {
	split := m.splitPositions(g, rec)
	if len(split) == 0 {
		return [][]*leaf{g.leaves}
	}
	var parts [][]*leaf
	index := map[string]int{}
	var key strings.Builder
	classes := make([][]string, len(split)) // the words seen at each position
	for _, l := range g.leaves {
		key.Reset()
		for k, p := range split {
			// Words that match each other are one class (see variants).
			w := l.tokens[p]
			c := slices.IndexFunc(classes[k], func(s string) bool { return globMatch(s, w) || globMatch(w, s) })
			if c < 0 {
				c = len(classes[k])
				classes[k] = append(classes[k], w)
			}
			key.WriteString(classes[k][c])
			key.WriteByte(0)
		}
		i, ok := index[key.String()]
		if !ok {
			i = len(parts)
			index[key.String()] = i
			parts = append(parts, nil)
		}
		parts[i] = append(parts[i], l)
	}
	return parts
}

// splitPositions lists the wildcard positions of g's template whose leaves
// hold between 2 and MaxVariants distinct words and never a masked <*>,
// less a leading program token when one of its leaves has a pid or a
// masked name in brackets ("CRON[<*>]:" and "crond[<*>]:", "[<*>]" and
// "[api]"): a logger's class names its event, a process does not.
func (m *Miner) splitPositions(g *coarse, rec map[slot]bool) []int {
	if m.cfg.MaxVariants < 0 || len(g.leaves) < 2 {
		return nil
	}
	var out []int
	pid := func(l *leaf) bool { return strings.Contains(l.tokens[0], "["+Wildcard+"]") }
	prog := len(g.tokens) > 1 && slices.ContainsFunc(g.leaves, pid) &&
		!slices.ContainsFunc(g.leaves, func(l *leaf) bool { return !isProgram(l.tokens) })
	for p, t := range g.tokens {
		if t != Wildcard || (p == 0 && prog) || rec[slot{g, p}] {
			continue // the process that wrote a message is not its event, nor is a recurring value
		}
		if n := variants(g.leaves, p, m.cfg.MaxVariants); n >= 2 && n <= m.cfg.MaxVariants {
			out = append(out, p)
		}
	}
	return out
}

// variants counts the distinct words at position p, stopping past max.
// Words that match each other when <*> stands for any text are one word
// ("()" and "(<*>)"); a bare <*> counts as too many, since the masker saw a
// variable there.
func variants(leaves []*leaf, p, max int) int {
	var seen []string
	for _, l := range leaves {
		w := l.tokens[p]
		if w == Wildcard {
			return max + 1
		}
		if !slices.ContainsFunc(seen, func(s string) bool { return globMatch(s, w) || globMatch(w, s) }) {
			seen = append(seen, w)
			if len(seen) > max {
				return len(seen)
			}
		}
	}
	return len(seen)
}

// globMatch reports whether word matches pattern, where each <*> in
// pattern stands for any text, empty included. It backtracks only to the
// last <*>, so it runs in O(len(pattern)·len(word)).
func globMatch(pattern, word string) bool {
	p, w := 0, 0
	star, mark := -1, 0
	for w < len(word) {
		switch {
		case strings.HasPrefix(pattern[p:], Wildcard):
			p += len(Wildcard)
			star, mark = p, w
		case p < len(pattern) && pattern[p] == word[w]:
			p++
			w++
		case star >= 0:
			mark++
			p, w = star, mark
		default:
			return false
		}
	}
	for strings.HasPrefix(pattern[p:], Wildcard) {
		p += len(Wildcard)
	}
	return p == len(pattern)
}

// mergeToken is the most specific token that matches both a and b: a or b
// when one matches the other ("user=<*>" and "user=bob"), else their
// common head and tail up to punctuation around a <*> ("(uid=<*>)"), else
// <*>.
func mergeToken(a, b string) string {
	switch {
	case a == b:
		return a
	case a == Wildcard || b == Wildcard:
		return Wildcard
	case globMatch(a, b):
		return a
	case globMatch(b, a):
		return b
	}
	head := commonHead(a, b)
	tail := commonTail(a[len(head):], b[len(head):])
	if head == "" && tail == "" {
		return Wildcard
	}
	return head + Wildcard + tail
}

// commonHead is the longest common prefix of a and b that ends in
// punctuation, so that words are never cut in the middle.
func commonHead(a, b string) string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	for n > 0 && !isPunct(a[n-1]) {
		n--
	}
	return a[:n]
}

// commonTail is the longest common suffix of a and b that starts with
// punctuation.
func commonTail(a, b string) string {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	for n > 0 && !isPunct(a[len(a)-n]) {
		n--
	}
	return a[len(a)-n:]
}

func isPunct(c byte) bool {
	return isDelim(c) || c == '=' || c == '"' || c == '\'' || c == '/' || c == '.' || c == '-' || c == '_' || c == '@' || c == '#'
}
