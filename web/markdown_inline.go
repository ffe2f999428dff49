package web

import "strings"

// maxInlineDepth bounds the nesting of strong, em and link spans.
const maxInlineDepth = 4

// parseInline splits a line of Markdown into spans: `code`, **strong**,
// *em* or _em_, [text](url) and <https://autolinks>. Unclosed markers are text.
func parseInline(s string) []mdSpan { return parseInlineDepth(s, 0) }

func parseInlineDepth(s string, depth int) []mdSpan {
	var out []mdSpan
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			out = append(out, mdSpan{Kind: "text", Text: text.String()})
			text.Reset()
		}
	}
	for i := 0; i < len(s); {
		if sp, n := inlineAt(s[i:], depth); n > 0 {
			flush()
			out = append(out, sp)
			i += n
			continue
		}
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\\`*_[]()<>#|", s[i+1]) >= 0 {
			text.WriteByte(s[i+1])
			i += 2
			continue
		}
		text.WriteByte(s[i])
		i++
	}
	flush()
	return out
}

// inlineAt recognises a span at the start of s and its length in bytes.
func inlineAt(s string, depth int) (mdSpan, int) {
	if depth >= maxInlineDepth && s[0] != '`' {
		return mdSpan{}, 0
	}
	switch s[0] {
	case '`':
		if text, n := codeSpanAt(s); n > 0 {
			sp := mdSpan{Kind: "code", Text: text}
			if isTraceID(text) {
				// A runbook's example traces open their pages.
				sp.Href = "/trace/" + text
			}
			return sp, n
		}
		// An unmatched run of backticks is literal text, all of it: no
		// span may start inside it.
		n := backtickRun(s)
		return mdSpan{Kind: "text", Text: s[:n]}, n
	case '*', '_':
		if strings.HasPrefix(s, "**") || strings.HasPrefix(s, "__") {
			if j := strings.Index(s[2:], s[:2]); j > 0 {
				return mdSpan{Kind: "strong", Children: parseInlineDepth(s[2:j+2], depth+1)}, j + 4
			}
		} else if j := strings.IndexByte(s[1:], s[0]); j > 0 && s[1] != ' ' {
			return mdSpan{Kind: "em", Children: parseInlineDepth(s[1:j+1], depth+1)}, j + 2
		}
	case '[':
		return linkAt(s, depth)
	case '<':
		if j := strings.IndexByte(s, '>'); j > 0 {
			if href := safeHref(s[1:j]); href != "" && strings.Contains(s[1:j], "://") {
				return mdSpan{Kind: "link", Href: href, Children: []mdSpan{{Kind: "text", Text: s[1:j]}}}, j + 1
			}
		}
	}
	return mdSpan{}, 0
}

// linkAt reads [text](url). An unsafe URL keeps the text, unlinked.
func linkAt(s string, depth int) (mdSpan, int) {
	end := strings.Index(s, "](")
	if end < 0 {
		return mdSpan{}, 0
	}
	close := strings.IndexByte(s[end+2:], ')')
	if close < 0 {
		return mdSpan{}, 0
	}
	text, raw := s[1:end], s[end+2:end+2+close]
	if href := safeHref(raw); href != "" {
		return mdSpan{Kind: "link", Href: href, Children: parseInlineDepth(text, depth+1)}, end + 3 + close
	}
	return mdSpan{Kind: "em", Children: parseInlineDepth(text, depth+1)}, end + 3 + close
}

// backtickRun is the length of the run of backticks s starts with.
func backtickRun(s string) int {
	n := 0
	for n < len(s) && s[n] == '`' {
		n++
	}
	return n
}

// codeSpanAt reads a CommonMark code span at the start of s: a run of n
// backticks closed by the next run of exactly n, so text holding shorter
// or longer runs stays inside (runbookgen fences log text that way). One
// space each side is stripped when both are there. n 0: no span.
func codeSpanAt(s string) (string, int) {
	open := backtickRun(s)
	for j := open; j < len(s); {
		if s[j] != '`' {
			j++
			continue
		}
		run := backtickRun(s[j:])
		if run == open {
			text := s[open:j]
			if len(text) >= 2 && text[0] == ' ' && text[len(text)-1] == ' ' && strings.Trim(text, " ") != "" {
				text = text[1 : len(text)-1]
			}
			return text, j + run
		}
		j += run
	}
	return "", 0
}

// splitCells splits a table row on the pipes that are neither escaped
// nor inside a code span.
func splitCells(t string) []string {
	var cells []string
	start := 0
	for i := 0; i < len(t); {
		switch t[i] {
		case '\\':
			i += 2
		case '`':
			if _, n := codeSpanAt(t[i:]); n > 0 {
				i += n
			} else {
				i += backtickRun(t[i:])
			}
		case '|':
			cells = append(cells, t[start:i])
			i++
			start = i
		default:
			i++
		}
	}
	return append(cells, t[min(start, len(t)):])
}

// isTraceID says whether s is a trace id as faultline writes them: 32
// lowercase hex digits.
func isTraceID(s string) bool {
	if len(s) != 32 {
		return false
	}
	for i := range len(s) {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
