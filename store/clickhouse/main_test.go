package clickhouse_test

import (
	"context"
	"os"
	"testing"

	"github.com/faultline/faultline/correlate"
	"github.com/faultline/faultline/ingest"
	"github.com/faultline/faultline/internal/chfront/chtest"
	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/store"
	"github.com/faultline/faultline/store/clickhouse"
)

// The ClickHouse store satisfies every consumer's interface.
var (
	_ store.Store     = (*clickhouse.Store)(nil)
	_ ingest.Sink     = (*clickhouse.Store)(nil)
	_ correlate.Store = (*clickhouse.Store)(nil)
	_ rootcause.Store = (*clickhouse.Store)(nil)
)

// front is the chDB front shared by every test of this binary.
var front *chtest.Front

func TestMain(m *testing.M) {
	code := chtest.Main(m, &front)
	cleanupBench()
	os.Exit(code)
}

// openStore opens a store on url and closes it when t ends.
func openStore(t testing.TB, url string, opts clickhouse.Options) *clickhouse.Store {
	t.Helper()
	s, err := clickhouse.Open(context.Background(), url, opts)
	if err != nil {
		t.Fatalf("%v\nfront log:\n%s", err, tail(front.Log(), 3000))
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}
