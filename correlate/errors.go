package correlate

import (
	"fmt"

	"github.com/faultline/faultline/schema"
)

// ErrUnknownTrace is returned by Analyze for a trace id the store holds no
// records of. It wraps schema.ErrNotFound, so either sentinel matches.
var ErrUnknownTrace = fmt.Errorf("no records for trace: %w", schema.ErrNotFound)

// maxQuoted is how much of a caller-supplied value an error message quotes.
const maxQuoted = 64

func quote(s string) string {
	if len(s) <= maxQuoted {
		return s
	}
	return s[:maxQuoted] + "…"
}
