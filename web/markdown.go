package web

import (
	"net/url"
	"strconv"
	"strings"
)

// A small Markdown reader for runbooks. It turns Markdown into a tree of
// blocks and inline spans that the runbook template renders, so every piece
// of text goes through html/template's escaping: raw HTML in the Markdown
// stays visible text, and links keep only http, https and relative URLs.
// It covers what runbookgen writes: ATX headings, paragraphs, bullet and
// numbered lists, fenced code, block quotes, pipe tables and rules.

// mdBlock is one block: Kind is "h", "p", "ul", "ol", "code", "quote", "table" or "hr".
type mdBlock struct {
	Kind   string
	Level  int        // headings
	Start  int        // numbered lists: the first number
	Lang   string     // code
	Text   string     // code: the literal text
	Spans  []mdSpan   // headings, paragraphs, quotes
	Items  [][]mdSpan // lists
	Header [][]mdSpan // tables
	Rows   [][][]mdSpan
	ID     string // headings: an anchor; code: the element id for its copy button
}

// mdSpan is one inline run: Kind is "text", "code", "strong", "em" or
// "link". Strong, em and link carry their content as Children.
type mdSpan struct {
	Kind     string
	Text     string
	Href     string
	Children []mdSpan
}

// parseMarkdown reads src into blocks.
func parseMarkdown(src string) []mdBlock {
	p := mdParser{lines: strings.Split(strings.ReplaceAll(strings.ToValidUTF8(src, "\uFFFD"), "\r\n", "\n"), "\n")}
	for p.i < len(p.lines) {
		p.block()
	}
	return p.out
}

type mdParser struct {
	lines []string
	i     int
	out   []mdBlock
	codes int
}

func (p *mdParser) block() {
	line := p.lines[p.i]
	t := strings.TrimSpace(line)
	switch {
	case t == "":
		p.i++
	case fenceOpen(t) > 0:
		n := fenceOpen(t)
		p.fence(t[:n], strings.TrimSpace(t[n:]))
	case headingLevel(t) > 0:
		lvl := headingLevel(t)
		text := strings.TrimSpace(strings.TrimRight(t[lvl:], "#"))
		p.out = append(p.out, mdBlock{Kind: "h", Level: lvl, Spans: parseInline(text), ID: slug(text)})
		p.i++
	case t == "---" || t == "***" || t == "___":
		p.out = append(p.out, mdBlock{Kind: "hr"})
		p.i++
	case strings.HasPrefix(t, ">"):
		p.quote()
	case listMarker(t) != "":
		p.list(listMarker(t), t)
	case strings.HasPrefix(t, "|") && p.i+1 < len(p.lines) && isTableRule(p.lines[p.i+1]):
		p.table()
	default:
		p.paragraph()
	}
}

func headingLevel(t string) int {
	n := 0
	for n < len(t) && n < 7 && t[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || (n < len(t) && t[n] != ' ') {
		return 0
	}
	return n
}

// listMarker returns "ul" or "ol" when t starts a list item.
func listMarker(t string) string {
	if strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") || strings.HasPrefix(t, "+ ") {
		return "ul"
	}
	d := 0
	for d < len(t) && d < 9 && t[d] >= '0' && t[d] <= '9' {
		d++
	}
	if d > 0 && d+1 < len(t) && (t[d] == '.' || t[d] == ')') && t[d+1] == ' ' {
		return "ol"
	}
	return ""
}

func stripMarker(t string) string {
	if i := strings.IndexByte(t, ' '); i >= 0 {
		return strings.TrimSpace(t[i+1:])
	}
	return ""
}

func (p *mdParser) fence(marker, lang string) {
	p.i++
	var body []string
	for p.i < len(p.lines) && !fenceCloses(strings.TrimSpace(p.lines[p.i]), marker) {
		body = append(body, p.lines[p.i])
		p.i++
	}
	p.i++ // the closing fence (or the end)
	p.codes++
	p.out = append(p.out, mdBlock{Kind: "code", Lang: lang, Text: strings.Join(body, "\n"), ID: "code-" + itoa(p.codes)})
}

func (p *mdParser) quote() {
	var text []string
	for p.i < len(p.lines) && strings.HasPrefix(strings.TrimSpace(p.lines[p.i]), ">") {
		text = append(text, strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(p.lines[p.i]), ">")))
		p.i++
	}
	p.out = append(p.out, mdBlock{Kind: "quote", Spans: parseInline(strings.Join(text, " "))})
}

// list reads consecutive items of one kind; indented lines continue an item.
func (p *mdParser) list(kind, first string) {
	b := mdBlock{Kind: kind}
	if kind == "ol" {
		b.Start, _ = strconv.Atoi(first[:strings.IndexAny(first, ".)")])
	}
	var cur []string
	flush := func() {
		if cur != nil {
			b.Items = append(b.Items, parseInline(strings.Join(cur, " ")))
		}
	}
	for p.i < len(p.lines) {
		line := p.lines[p.i]
		t := strings.TrimSpace(line)
		switch {
		case t == "" || fenceOpen(t) > 0:
			flush()
			p.out = append(p.out, b)
			return
		case listMarker(t) == kind:
			flush()
			cur = []string{stripMarker(t)}
		case cur != nil && (line[0] == ' ' || line[0] == '\t') || cur != nil && listMarker(t) == "" && !startsBlock(t):
			cur = append(cur, t)
		default:
			flush()
			p.out = append(p.out, b)
			return
		}
		p.i++
	}
	flush()
	p.out = append(p.out, b)
}

func startsBlock(t string) bool {
	return headingLevel(t) > 0 || fenceOpen(t) > 0 || strings.HasPrefix(t, ">") || strings.HasPrefix(t, "|")
}

func (p *mdParser) paragraph() {
	var text []string
	for p.i < len(p.lines) {
		t := strings.TrimSpace(p.lines[p.i])
		if t == "" || (len(text) > 0 && (startsBlock(t) || listMarker(t) != "")) {
			break
		}
		text = append(text, t)
		p.i++
	}
	p.out = append(p.out, mdBlock{Kind: "p", Spans: parseInline(strings.Join(text, " "))})
}

func isTableRule(line string) bool {
	t := strings.TrimSpace(line)
	return strings.HasPrefix(t, "|") && strings.Trim(t, "|-: ") == "" && strings.Contains(t, "-")
}

func (p *mdParser) table() {
	b := mdBlock{Kind: "table", Header: tableCells(p.lines[p.i])}
	p.i += 2
	for p.i < len(p.lines) && strings.HasPrefix(strings.TrimSpace(p.lines[p.i]), "|") {
		b.Rows = append(b.Rows, tableCells(p.lines[p.i]))
		p.i++
	}
	p.out = append(p.out, b)
}

func tableCells(line string) [][]mdSpan {
	t := strings.TrimSpace(line)
	t = strings.TrimPrefix(t, "|")
	if strings.HasSuffix(t, "|") && !strings.HasSuffix(t, "\\|") {
		t = t[:len(t)-1]
	}
	var cells [][]mdSpan
	for _, c := range splitCells(t) {
		cells = append(cells, parseInline(strings.TrimSpace(c)))
	}
	return cells
}

// slug makes a heading anchor from its text.
func slug(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == ' ' || r == '-':
			b.WriteByte('-')
		}
	}
	return "h-" + strings.Trim(b.String(), "-")
}

// safeHref keeps http, https and relative links; anything else (javascript:,
// data:, vbscript:, ...) yields "" and the link renders as plain text.
func safeHref(raw string) string {
	raw = strings.TrimSpace(raw)
	if raw == "" || strings.ContainsAny(raw, "\x00\r\n\t\\") {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		if u.Host == "" {
			return ""
		}
		return u.String()
	case "":
		if strings.HasPrefix(raw, "//") || u.Host != "" || strings.Contains(strings.SplitN(raw, "/", 2)[0], ":") {
			return ""
		}
		return u.String()
	}
	return ""
}

// fenceOpen is the length of the code fence t opens (CommonMark): three or
// more backticks whose info string holds no backtick, or three or more
// tildes; 0 when t opens none. A line such as "```` x ```` uses:" is a
// code span, not a fence.
func fenceOpen(t string) int {
	if t == "" || (t[0] != '`' && t[0] != '~') {
		return 0
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 || (t[0] == '`' && strings.Contains(t[n:], "`")) {
		return 0
	}
	return n
}

// fenceCloses reports whether t closes a fence opened by marker: the same
// character, at least as many, and nothing else.
func fenceCloses(t, marker string) bool {
	return len(t) >= len(marker) && strings.Trim(t, marker[:1]) == ""
}
