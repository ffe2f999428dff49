package clickhouse_test

import (
	"testing"

	"github.com/faultline/faultline/store"
	"github.com/faultline/faultline/store/clickhouse"
	"github.com/faultline/faultline/store/storetest"
)

// TestConformance runs the store suite against a real ClickHouse engine
// (chDB behind the HTTP front), every sub-test on one database as a
// shared server would be used.
func TestConformance(t *testing.T) {
	s := openStore(t, front.NewDatabase(t), clickhouse.Options{})
	storetest.Run(t, func(*testing.T) store.Store { return s })
}

// TestConformanceSpool runs it again with the spool on, which must not
// change what a healthy server stores.
func TestConformanceSpool(t *testing.T) {
	opts := clickhouse.Options{Writer: clickhouse.WriterOptions{SpoolDir: t.TempDir()}}
	s := openStore(t, front.NewDatabase(t), opts)
	storetest.Run(t, func(*testing.T) store.Store { return s })
}
