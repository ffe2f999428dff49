package clickhouse_test

import (
	"testing"

	"github.com/faultline/faultline/store"
	"github.com/faultline/faultline/store/clickhouse"
	"github.com/faultline/faultline/store/storetest"
)

// TestConformance runs the store suite against a real ClickHouse engine
// (chDB behind the HTTP front, through clickhouse-go's HTTP protocol),
// every sub-test on one database as a shared server would be used, with
// the writer configured as ingest serve runs it (spool on).
func TestConformance(t *testing.T) {
	opts := clickhouse.Options{Writer: clickhouse.WriterOptions{SpoolDir: t.TempDir()}}
	s := openStore(t, front.NewDatabase(t), opts)
	storetest.Run(t, func(*testing.T) store.Store { return s })
}
