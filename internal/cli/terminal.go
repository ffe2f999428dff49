package cli

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// TerminalSafe makes text from logs and alerts safe to print on a
// terminal: control characters (ESC and the rest of C0 but newline and
// tab, DEL, C1) and the bidirectional overrides are shown as visible
// escapes (\x1b, \u009b, \u202e), so that no escape sequence from a log
// line can clear the screen, retitle the window, plant a hidden link or
// reorder what is shown. Broken UTF-8 becomes \xNN as well.
func TerminalSafe(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r <= 0x9f, isBidiControl(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func needsEscape(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < 0x80 {
			if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
				return true
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || r <= 0x9f || isBidiControl(r) {
			return true
		}
		i += n
	}
	return false
}

func isBidiControl(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c
}

// WriteTerminal writes s to w through TerminalSafe.
func WriteTerminal(w io.Writer, s string) error {
	_, err := io.WriteString(w, TerminalSafe(s))
	return err
}
