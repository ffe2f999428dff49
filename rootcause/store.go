package rootcause

import (
	"context"
	"iter"
	"time"

	"github.com/faultline/faultline/correlate"
	"github.com/faultline/faultline/schema"
)

// Store reads what incident analysis needs. Both store backends satisfy it.
//
// WindowRecords yields the records (logs and spans) whose Time lies in
// [q.From, q.To), ordered by Time, filtered by q.Service and q.ErrorsOnly
// when set, at most q.Limit of them (0: the store's default cap): the
// oldest, or with q.Newest the newest (still in time order). An empty
// window yields nothing and no error. A read failure is yielded once as the
// error, after which iteration stops.
//
// Bounds is the time of the oldest and newest record held (zero when empty);
// the baseline falls back to "what the store has" before the window.
type Store interface {
	correlate.Store
	WindowRecords(ctx context.Context, q schema.WindowQuery) iter.Seq2[schema.Record, error]
	Bounds(ctx context.Context) (first, last time.Time, err error)
}

// newestFirst is st reading windows with WindowQuery.Newest: an incident
// window over the record limit keeps its end, where the incident is, and
// leaves out its start (which the report then names).
type newestFirst struct{ Store }

func (n newestFirst) WindowRecords(ctx context.Context, q schema.WindowQuery) iter.Seq2[schema.Record, error] {
	q.Newest = true
	return n.Store.WindowRecords(ctx, q)
}
