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
		if j := strings.IndexByte(s[1:], '`'); j >= 0 {
			return mdSpan{Kind: "code", Text: s[1 : j+1]}, j + 2
		}
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
