package enrich

import (
	"io"
	"strings"

	"github.com/slack-go/slack"
)

// WriteText renders m for a terminal: one paragraph per block, links as
// "label (url)", mrkdwn entities decoded.
func WriteText(w io.Writer, m *Message) error {
	var b strings.Builder
	for _, bl := range m.Blocks.BlockSet {
		switch x := bl.(type) {
		case *slack.HeaderBlock:
			b.WriteString(readable(x.Text.Text) + "\n")
			b.WriteString(strings.Repeat("=", min(len([]rune(x.Text.Text)), 72)) + "\n")
		case *slack.SectionBlock:
			if x.Text != nil {
				b.WriteString(readable(x.Text.Text) + "\n")
			}
			for _, f := range x.Fields {
				b.WriteString("  " + strings.ReplaceAll(readable(f.Text), "\n", ": ") + "\n")
			}
		case *slack.DividerBlock:
			b.WriteString("--\n")
		case *slack.ContextBlock:
			for _, el := range x.ContextElements.Elements {
				if t, ok := el.(*slack.TextBlockObject); ok {
					b.WriteString(readable(t.Text) + "\n")
				}
			}
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, strings.TrimRight(b.String(), "\n")+"\n")
	return err
}

// readable turns mrkdwn into plain text: <url|label> becomes
// "label (url)", entities are decoded.
func readable(s string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i:], '>')
		if j < 0 {
			break
		}
		b.WriteString(s[:i])
		inner := s[i+1 : i+j]
		if u, label, ok := strings.Cut(inner, "|"); ok {
			b.WriteString(label + " (" + u + ")")
		} else {
			b.WriteString(inner)
		}
		s = s[i+j+1:]
	}
	b.WriteString(s)
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(b.String())
}
