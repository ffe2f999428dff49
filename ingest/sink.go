package ingest

import (
	"context"

	"github.com/faultline/faultline/schema"
)

// Sink takes a batch of fully built, normalised records. It is owned here,
// by its consumer; both store backends satisfy it.
//
// WriteBatch stores every record of recs or none of them: when it returns
// nil the records are durable (a 2xx may be sent), when it returns an error
// nothing of the batch is visible to readers. recs is not retained after
// the call returns. An empty batch is a no-op.
type Sink interface {
	WriteBatch(ctx context.Context, recs []schema.Record) error
}
