package ingest

import (
	"testing"

	"github.com/faultline/faultline/schema"
)

// TestTextBareTrace reads a 32-hex trace id written as trace=… or
// [trace=…], and not one behind a longer word such as stacktrace=.
func TestTextBareTrace(t *testing.T) {
	const id = "4bf92f3577b34da6a3ce929d0e0e4736"
	for line, want := range map[string]schema.TraceID{
		"ERROR charge failed [trace=" + id + "]":                 id,
		"ERROR charge failed trace=" + id + " user=42":           id,
		"charge failed [TRACE=4BF92F3577B34DA6A3CE929D0E0E4736]": id,
		`charge failed trace="` + id + `"`:                       id,
		"trace=" + id + " charge failed":                         id,
		"dump written stacktrace=" + id:                          "",
		"dump written my_trace=" + id:                            "",
		"ERROR charge failed trace=" + id + "ff":                 "", // 34 hex: not an id
		"ERROR charge failed trace=" + id[:16]:                   "", // only 32 hex
	} {
		b := NewBatch(newTestDecoder(t).Limits())
		newTestDecoder(t).TextLine([]byte(line), b)
		if len(b.Records) != 1 {
			t.Errorf("%q: %d records", line, len(b.Records))
			continue
		}
		if got := b.Records[0].TraceID; got != want {
			t.Errorf("%q: trace id %q, want %q", line, got, want)
		}
	}
}
