package enrich

import (
	"net/url"
	"strings"
	"unicode/utf8"
)

// Slack's limits on Block Kit, named once.
const (
	maxHeaderText  = 150  // header block, plain_text
	maxSectionText = 3000 // section block text
	maxFieldText   = 2000 // a section field
	maxContextText = 2000 // a context element (Slack allows 3000; kept short)
	maxBlocks      = 50   // blocks per message
	maxFallback    = 3000 // the notification text (Slack cuts at 40000)
	maxEvidence    = 300  // one evidence line from the logs
	maxTemplate    = 200  // an error template in a candidate
	maxLinkURL     = 3000 // a URL inside a link
	maxInputString = 1000 // any single string taken from an alert
	ellipsis       = "…"
)

// escapeMrkdwn escapes the three characters Slack's mrkdwn reserves, so
// text from logs and labels cannot form links or mentions.
func escapeMrkdwn(s string) string {
	if !strings.ContainsAny(s, "&<>") {
		return s
	}
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
	return r.Replace(s)
}

// cut shortens s to at most max characters, ending with an ellipsis when
// cut, and never splits a UTF-8 sequence.
func cut(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	if max < 1 {
		return ""
	}
	n := 0
	for i := range s {
		if n == max-1 {
			return s[:i] + ellipsis
		}
		n++
	}
	return s
}

// cutMrkdwn shortens escaped mrkdwn to max characters without splitting an
// entity (&amp;) or a link (<url|label>).
func cutMrkdwn(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	c := strings.TrimSuffix(cut(s, max), ellipsis)
	if i := strings.LastIndexByte(c, '&'); i >= 0 && !strings.Contains(c[i:], ";") {
		c = c[:i]
	}
	if i := strings.LastIndexByte(c, '<'); i >= 0 && !strings.Contains(c[i:], ">") {
		c = c[:i]
	}
	// An unclosed code span would swallow the ellipsis; close it.
	if strings.Count(c, "`")%2 == 1 {
		if utf8.RuneCountInString(c)+2 > max {
			c = cut(c, max-2)
			c = strings.TrimSuffix(c, ellipsis)
		}
		return c + "`" + ellipsis
	}
	return c + ellipsis
}

// plain makes a single-line string of alert or log text: control
// characters become spaces, and it is cut to max.
func plain(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	return cut(strings.TrimSpace(s), max)
}

// inline is escaped, single-line mrkdwn from untrusted text.
func inline(s string, max int) string { return escapeMrkdwn(plain(s, max)) }

// code renders untrusted text in a code span (backticks inside become ').
func code(s string, max int) string {
	return "`" + escapeMrkdwn(strings.ReplaceAll(plain(s, max), "`", "'")) + "`"
}

// link is a mrkdwn link; label is plain text, escaped here. An unusable
// URL gives the label alone.
func link(rawURL, label string) string {
	u := safeURL(rawURL)
	label = strings.ReplaceAll(inline(label, 200), "|", "¦")
	if u == "" {
		return label
	}
	return "<" + u + "|" + label + ">"
}

// safeURL returns an absolute http(s) URL fit for a mrkdwn link, with the
// characters mrkdwn reserves percent-encoded; "" when unusable.
func safeURL(raw string) string {
	raw = strings.TrimSpace(raw)
	if raw == "" || len(raw) > maxLinkURL {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	s := u.String()
	return strings.NewReplacer("<", "%3C", ">", "%3E", "|", "%7C", " ", "%20", "&", "&amp;").Replace(s)
}

// absolute joins base (FAULTLINE_PUBLIC_URL) and a path; "" without a
// usable base. An already absolute ref is returned as is.
func absolute(base, ref string) string {
	if strings.HasPrefix(ref, "http://") || strings.HasPrefix(ref, "https://") {
		return ref
	}
	b, err := url.Parse(strings.TrimSpace(base))
	if err != nil || (b.Scheme != "http" && b.Scheme != "https") || b.Host == "" {
		return ""
	}
	return strings.TrimRight(b.String(), "/") + "/" + strings.TrimLeft(ref, "/")
}
