package patterns

import (
	"slices"
	"strconv"
	"strings"
)

// Config tunes a Miner. The zero value takes the defaults.
type Config struct {
	// SimThreshold is the share of a message's tokens that must agree with
	// a group's template for the message to join the group (0 < x ≤ 1).
	// Default DefaultSimThreshold.
	SimThreshold float64
	// MaxVariants is the most distinct words a position may take across a
	// group and still be read as part of the event (VM Paused / Resumed /
	// Started) rather than a variable (user names). Default
	// DefaultMaxVariants; negative means never split.
	MaxVariants int
	// Masked says that messages given to Add are already masked (for
	// example the Template stored with each record), so Add skips Mask.
	Masked bool
}

// Defaults of a zero Config.
const (
	DefaultSimThreshold = 0.4
	DefaultMaxVariants  = 3 // chosen by leave-one-system-out (see loso_test.go)
)

// Template is one group of messages: its id (derived from the template
// text alone, so the same text gives the same id in every process), the
// template with <*> for variable parts, and how many messages it holds.
type Template struct {
	ID       string `json:"id"`
	Template string `json:"template"`
	Count    int    `json:"count"`
}

// TemplateID is the id of a template text: sixteen lowercase hex characters.
func TemplateID(template string) string {
	return string(SignatureOf("", template))
}

// Miner groups messages into templates online. It is not safe for
// concurrent use. Its result depends only on the messages and their order.
//
// Each distinct masked message is a leaf; Add routes a new leaf at once to
// the most similar coarse group (Drain's step), and the final templates are
// drawn from the coarse groups when asked for (see refine), so every id Add
// returned keeps resolving through Lookup. Memory grows with the number of
// distinct masked messages, not with the number of messages.
type Miner struct {
	cfg     Config
	leaves  map[string]*leaf // by masked text, as given and as normalised
	byID    map[string]*leaf // by leaf id
	buckets map[string][]*coarse
	groups  []*coarse            // in order of creation
	final   map[string]*Template // by template id; valid when !dirty
	dirty   bool
}

// leaf is one distinct masked message; final is its template after the
// last compact.
type leaf struct {
	id     string
	tokens []string
	count  int
	final  *Template
}

// coarse is a group as Drain would build it: a template generalised over
// its leaves, in the order they arrived.
type coarse struct {
	tokens []string
	leaves []*leaf
}

// NewMiner returns an empty miner.
func NewMiner(cfg Config) *Miner {
	if cfg.SimThreshold <= 0 || cfg.SimThreshold > 1 {
		cfg.SimThreshold = DefaultSimThreshold
	}
	if cfg.MaxVariants == 0 {
		cfg.MaxVariants = DefaultMaxVariants
	}
	return &Miner{cfg: cfg, leaves: map[string]*leaf{}, byID: map[string]*leaf{}, buckets: map[string][]*coarse{}}
}

// Add puts one message into the miner and returns its id: the template id
// of the masked message itself. Lookup resolves it to the final template of
// the group the message ends in. An empty message gets the template "".
func (m *Miner) Add(msg string) string {
	return m.AddCount(msg, 1)
}

// AddCount adds n identical messages at once (n < 1 counts as 1), for
// callers that already hold counted templates.
func (m *Miner) AddCount(msg string, n int) string {
	if n < 1 {
		n = 1
	}
	if !m.cfg.Masked {
		msg = mask(msg, true)
	}
	m.dirty = true
	if l, ok := m.leaves[msg]; ok {
		l.count += n
		return l.id
	}
	tokens := collapseWildcards(joinQuoted(strings.Fields(msg)))
	text := strings.Join(tokens, " ")
	if l, ok := m.leaves[text]; ok {
		m.leaves[msg] = l
		l.count += n
		return l.id
	}
	l := &leaf{id: TemplateID(text), tokens: tokens, count: n}
	m.leaves[msg] = l
	m.leaves[text] = l
	m.byID[l.id] = l
	m.route(l)
	return l.id
}

// route puts a new leaf into the most similar coarse group of its bucket,
// or into a new one.
func (m *Miner) route(l *leaf) {
	key := bucketKey(l.tokens)
	g := m.best(m.buckets[key], l.tokens)
	if g == nil {
		g = &coarse{tokens: slices.Clone(l.tokens)}
		m.groups = append(m.groups, g)
		m.buckets[key] = append(m.buckets[key], g)
	} else {
		generalise(g.tokens, l.tokens)
	}
	g.leaves = append(g.leaves, l)
}

// bucketKey routes a message by its token count and first token, or a
// word after it (routeWord) when the first names the program or component
// that wrote the line (see isProgram): the same message from another
// program, pid or process meets its peers, and refine decides whether that
// first position is an event word or a variable.
func bucketKey(tokens []string) string {
	if len(tokens) == 0 {
		return "0"
	}
	if len(tokens) > 1 && isProgram(tokens) {
		return strconv.Itoa(len(tokens)) + " \x00" + routeWord(tokens[1:])
	}
	return strconv.Itoa(len(tokens)) + " " + tokens[0]
}

// routeWord is the first of the next few tokens after a program token that
// is neither bracketed ("(root)", "[pid <*>]") nor all variable: what the
// program says, not to whom.
func routeWord(tokens []string) string {
	for _, t := range tokens[:min(len(tokens), 3)] {
		enclosed := len(t) > 1 && strings.IndexByte("([{", t[0]) >= 0 && strings.IndexByte(")]}", t[len(t)-1]) >= 0
		if !enclosed && !isAllVariable(t) {
			return t
		}
	}
	return tokens[0]
}

// isProgram reports whether tokens start with a program or component
// token: "sshd[<*>]:", "kernel:", "[scheduler]", or any word followed by
// a lone "-", maybe after a variable ("chrome.exe - ...", "o.a.Main - ...",
// "app *64 - ..."), or a lone ":", the program's place left empty.
func isProgram(tokens []string) bool {
	t := tokens[0]
	switch {
	case t == ":":
		return true
	case tokens[1] == "-", len(tokens) > 2 && tokens[2] == "-" && isAllVariable(tokens[1]) && !strings.ContainsAny(tokens[1], "()[]{}"):
		return true
	case len(t) > 2 && t[0] == '[' && t[len(t)-1] == ']':
		return true
	case len(t) > 1 && t[len(t)-1] == ':' && isLetter(t[0]):
		return true
	}
	return false
}

// closesQuote reports whether w ends with the quote q, less trailing
// punctuation ("Doe\",", not "O'Brien").
func closesQuote(w string, q byte) bool {
	w = strings.TrimRight(w, ",.;:)]}")
	return w != "" && w[len(w)-1] == q
}

// isName reports whether a quoted phrase (head, from its opening quote on,
// and the words after it) reads as a name: more plain words than
// variables, and no '=', '/' or variable inside a word (a request line,
// key=value pairs, a masked value are structure).
func isName(head string, words []string) bool {
	plain, wild := 0, 0
	for _, w := range append([]string{head}, words...) {
		switch {
		case strings.Trim(w, "\"',.;:()[]{}") == Wildcard:
			wild++
		case strings.ContainsAny(w, "<>=/"):
			return false
		default:
			plain++
		}
	}
	return plain > wild
}

// maxQuoted is the most words a quoted phrase that becomes one token spans.
const maxQuoted = 8

// joinQuoted makes each quoted phrase of two to maxQuoted words one token,
// in place, so that a multi-word name keeps the message's token count and
// takes one position. A quoted name on its own is a variable, as Mask
// takes a quoted word ('Quarterly Report' → '<*>'); the value of a key
// (msg="connection refused by peer") stays whole, for refine to judge like
// any word, since in key=value logs it often names the event. A quote
// opens at the start of a token or after = ( [ { or :, and closes at the
// end of a later token, less trailing punctuation. Only a phrase that
// reads as a name joins (see isName).
func joinQuoted(tokens []string) []string {
	out := tokens[:0]
	for i := 0; i < len(tokens); i++ {
		t := tokens[i]
		k := strings.IndexAny(t, "\"'")
		if k < 0 || (k > 0 && strings.IndexByte("=([{:", t[k-1]) < 0) || closesQuote(t[k+1:], t[k]) {
			out = append(out, t)
			continue
		}
		end := -1
		for j := i + 1; j < len(tokens) && j < i+maxQuoted; j++ {
			if closesQuote(tokens[j], t[k]) {
				end = j
				break
			}
		}
		if end < 0 || !isName(t[k:], tokens[i+1:end+1]) {
			out = append(out, t)
			continue
		}
		if k > 0 && t[k-1] == '=' {
			out = append(out, strings.Join(tokens[i:end+1], " ")) // a value, counted like a word
		} else {
			last := tokens[end]
			out = append(out, t[:k+1]+Wildcard+last[strings.LastIndexByte(last, t[k]):])
		}
		i = end
	}
	return out
}

// maxScan bounds how many groups of one bucket a new message is compared
// with (the newest ones), so that input with no structure at all cannot
// make mining quadratic.
const maxScan = 512

// best returns the group of the bucket most similar to tokens, or nil when
// none reaches the threshold. Ties go to the older group.
func (m *Miner) best(bucket []*coarse, tokens []string) *coarse {
	var best *coarse
	bestSim := -1.0
	for _, g := range bucket[max(0, len(bucket)-maxScan):] {
		if sim := similarity(g.tokens, tokens); sim > bestSim {
			best, bestSim = g, sim
		}
	}
	if best == nil || bestSim < m.cfg.SimThreshold {
		return nil
	}
	return best
}

// similarity is the share of the message's positions where the template
// holds the same constant (Drain's measure: a wildcard agrees with nothing,
// so messages that are mostly variables do not pull each other in). A
// token that is partly variable ("(uid=<*>)", a quoted phrase) agrees with
// the words it matches.
func similarity(tmpl, tokens []string) float64 {
	if len(tokens) == 0 {
		return 1
	}
	same, n := 0, len(tokens)
	for i, t := range tmpl {
		switch {
		case t != Wildcard && (t == tokens[i] || globAgree(t, tokens[i])):
			same++
		case strings.HasPrefix(t, Wildcard) && strings.HasPrefix(tokens[i], Wildcard):
			n-- // variables both: neither for nor against
		}
	}
	if 2*n < len(tokens) {
		n = (len(tokens) + 1) / 2
	}
	return float64(same) / float64(n)
}

// globAgree reports whether two different tokens, one of them partly
// variable, match each other with <*> standing for any text.
func globAgree(a, b string) bool {
	if b == Wildcard {
		return false
	}
	return (strings.Contains(a, Wildcard) && globMatch(a, b)) || (strings.Contains(b, Wildcard) && globMatch(b, a))
}

// generalise turns the positions of tmpl that differ from tokens into
// wildcards.
func generalise(tmpl, tokens []string) {
	for i, t := range tmpl {
		if t != Wildcard && t != tokens[i] {
			tmpl[i] = Wildcard
		}
	}
}

// Lookup resolves an id returned by Add, or the id of a final template, to
// the final template; ok is false for an id this miner never gave out.
// The first Lookup or Templates after an Add rebuilds the final templates
// (linear in the distinct messages), so add a batch before resolving it.
func (m *Miner) Lookup(id string) (Template, bool) {
	m.compact()
	if l, ok := m.byID[id]; ok {
		return *l.final, true
	}
	if t, ok := m.final[id]; ok {
		return *t, true
	}
	return Template{}, false
}

// Templates returns the final templates, most messages first, ties by id.
// Empty when nothing was added.
func (m *Miner) Templates() []Template {
	m.compact()
	out := make([]Template, 0, len(m.final))
	for _, t := range m.final {
		out = append(out, *t)
	}
	slices.SortFunc(out, func(a, b Template) int {
		if a.Count != b.Count {
			return b.Count - a.Count
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}

// collapseWildcards folds runs of bare <*> tokens into one, in place, so
// that lists of variable length ("delete <*> <*> <*>") share a template.
func collapseWildcards(tokens []string) []string {
	out := tokens[:0]
	for _, t := range tokens {
		if t == Wildcard && len(out) > 0 && out[len(out)-1] == Wildcard {
			continue
		}
		out = append(out, t)
	}
	return out
}
