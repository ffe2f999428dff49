package sqlite_test

import (
	"github.com/faultline/faultline/correlate"
	"github.com/faultline/faultline/ingest"
	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/store"
	"github.com/faultline/faultline/store/sqlite"
)

// The embedded store satisfies every consumer's interface.
var (
	_ store.Store     = (*sqlite.DB)(nil)
	_ ingest.Sink     = (*sqlite.DB)(nil)
	_ correlate.Store = (*sqlite.DB)(nil)
	_ rootcause.Store = (*sqlite.DB)(nil)
)
