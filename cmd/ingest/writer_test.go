package main

import (
	"errors"
	"fmt"
	"testing"

	"github.com/faultline/faultline/ingest"
	"github.com/faultline/faultline/store/clickhouse"
	"github.com/faultline/faultline/store/sqlite"
)

// TestClickHouseSink checks the adapter that gives ingest the ClickHouse
// writer's status and overload errors without ingest importing the backend.
func TestClickHouseSink(t *testing.T) {
	for _, c := range []struct {
		in   error
		want error
	}{
		{fmt.Errorf("cannot write 3 records: %w (2 batches, 10 bytes)", clickhouse.ErrSpoolFull), ingest.ErrStoreFull},
		{fmt.Errorf("cannot write 3 records: %w: dial tcp: refused", clickhouse.ErrUnavailable), ingest.ErrStoreUnavailable},
	} {
		got := overloadOf(c.in)
		if !errors.Is(got, c.want) || !errors.Is(got, c.in) {
			t.Errorf("overloadOf(%v) = %v, want it to wrap %v", c.in, got, c.want)
		}
	}
	other := errors.New("record cannot be stored")
	if got := overloadOf(other); got != other || overloadOf(nil) != nil {
		t.Errorf("other errors must pass unchanged: %v", got)
	}
	sink, ok := sinkOf(&clickhouse.Store{}).(clickhouseSink)
	if !ok {
		t.Fatal("a ClickHouse store is not adapted")
	}
	if st := sink.IngestWriterStatus(); !st.Healthy || st.Breaker != clickhouse.BreakerClosed {
		t.Errorf("status of a store without a writer: %+v", st)
	}
	db, err := sqlite.Open(t.Context(), t.TempDir()+"/s.db", sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, ok := sinkOf(db).(clickhouseSink); ok {
		t.Error("the embedded store was adapted")
	}
}
