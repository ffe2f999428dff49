package correlate

import (
	"context"
	"iter"

	"github.com/faultline/faultline/schema"
)

// Store reads the records of one trace. It is owned here, by its consumer;
// both store backends satisfy it.
//
// TraceRecords yields every record (logs and spans) whose TraceID is id, in
// no guaranteed order, at most limit of them (limit <= 0 means the store's
// default cap). An unknown id yields nothing and no error. A failure to read
// is yielded once as the error, after which iteration stops.
type Store interface {
	TraceRecords(ctx context.Context, id schema.TraceID, limit int) iter.Seq2[schema.Record, error]
}
