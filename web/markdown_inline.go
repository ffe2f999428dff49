package web

import "strings"

// parseInline splits a line of Markdown into spans: `code`, **strong**,
// *em* or _em_, [text](url) and <https://autolinks>. Unclosed markers are text.
func parseInline(s string) []mdSpan {
	var out []mdSpan
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			out = append(out, mdSpan{Kind: "text", Text: text.String()})
			text.Reset()
		}
	}
	for i := 0; i < len(s); {
		if sp, n := inlineAt(s[i:]); n > 0 {
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
func inlineAt(s string) (mdSpan, int) {
	switch s[0] {
	case '`':
		if j := strings.IndexByte(s[1:], '`'); j >= 0 {
			return mdSpan{Kind: "code", Text: s[1 : j+1]}, j + 2
		}
	case '*', '_':
		if strings.HasPrefix(s, "**") || strings.HasPrefix(s, "__") {
			if j := strings.Index(s[2:], s[:2]); j > 0 {
				return mdSpan{Kind: "strong", Text: s[2 : j+2]}, j + 4
			}
		} else if j := strings.IndexByte(s[1:], s[0]); j > 0 && s[1] != ' ' {
			return mdSpan{Kind: "em", Text: s[1 : j+1]}, j + 2
		}
	case '[':
		return linkAt(s)
	case '<':
		if j := strings.IndexByte(s, '>'); j > 0 {
			if href := safeHref(s[1:j]); href != "" && strings.Contains(s[1:j], "://") {
				return mdSpan{Kind: "link", Text: s[1:j], Href: href}, j + 1
			}
		}
	}
	return mdSpan{}, 0
}

// linkAt reads [text](url). An unsafe URL keeps the text, unlinked.
func linkAt(s string) (mdSpan, int) {
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
		return mdSpan{Kind: "link", Text: text, Href: href}, end + 3 + close
	}
	return mdSpan{Kind: "text", Text: text}, end + 3 + close
}
