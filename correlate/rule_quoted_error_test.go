package correlate

import "testing"

// TestQuotedLen checks what counts as quoting another service's error: its
// message whole inside a longer line, or its part after its own prefix
// when the line gives the status it answered first; two lines that merely
// end alike quote no one.
func TestQuotedLen(t *testing.T) {
	for _, c := range []struct {
		body, msg string
		want      int
	}{
		{"payment failed: IllegalArgumentException: BIN 411111 unknown", "IllegalArgumentException: BIN 411111 unknown", 44},
		{"POST /v1/charge returned 503: BIN 411111 is not in the table", "order 8812: BIN 411111 is not in the table", 30},
		// Siblings: the same library's words at the end of both.
		{`Get "http://b/x": context deadline exceeded`, `Get "http://c/y": context deadline exceeded`, 0},
		// No longer than the message: no quote of it.
		{"IllegalArgumentException: BIN 411111 unknown", "IllegalArgumentException: BIN 411111 unknown", 0},
		// A prefix's part quoted with no status before it.
		{"charge failed: BIN 411111 is not in the table", "order 8812: BIN 411111 is not in the table", 0},
	} {
		if got := quotedLen(c.body, c.msg); got != c.want {
			t.Errorf("quotedLen(%q, %q) = %d, want %d", c.body, c.msg, got, c.want)
		}
	}
}
