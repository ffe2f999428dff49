package backend

import (
	"fmt"
	"iter"

	"github.com/faultline/faultline/schema"
)

// SampleUpTo yields the first limit records of a store's sample of a
// window (read limit+1, oldest first), then, when seq holds more, an error
// that says what and wraps schema.ErrSampleOverLimit: the analysis reads
// such a window again, sampled by the process, newest first.
func SampleUpTo(seq iter.Seq2[schema.Record, error], limit int, what string) iter.Seq2[schema.Record, error] {
	return func(yield func(schema.Record, error) bool) {
		n := 0
		for r, err := range seq {
			if err != nil {
				yield(schema.Record{}, err)
				return
			}
			if n++; n > limit {
				yield(schema.Record{}, fmt.Errorf("%s: %w", what, schema.ErrSampleOverLimit))
				return
			}
			if !yield(r, nil) {
				return
			}
		}
	}
}
