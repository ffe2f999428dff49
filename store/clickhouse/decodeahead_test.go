package clickhouse

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/faultline/faultline/schema"
)

// scriptRows are rows of a read as the driver gives them, row i a log of
// trace "t<i>"; the row at failAt fails to scan, the one at panicAt
// panics, and rows end after n. Close records that it was called.
type scriptRows struct {
	driver.Rows
	n, at, failAt, panicAt int
	closed                 bool
}

func (r *scriptRows) Next() bool        { r.at++; return r.at <= r.n }
func (r *scriptRows) Columns() []string { return make([]string, len(new(row).dest(false))) }
func (r *scriptRows) Err() error        { return nil }
func (r *scriptRows) Close() error {
	r.closed = true
	return nil
}

func (r *scriptRows) Scan(dest ...any) error {
	i := r.at - 1
	if i == r.failAt {
		return errors.New("connection reset")
	}
	if i == r.panicAt {
		panic("scan broke")
	}
	*dest[2].(*string) = fmt.Sprintf("t%d", i)
	*dest[12].(*string) = ""
	return nil
}

// TestDecodeAhead checks what a read decoded on another goroutine gives
// its caller: every row, in order, across batches; a caller that stops
// early ends the goroutine and closes the rows; a row that fails ends the
// read with its error after the rows before it; a panic in the decoding
// is raised again on the caller's goroutine.
func TestDecodeAhead(t *testing.T) {
	read := func(rows *scriptRows, stopAfter int) (ids []string, err error) {
		decodeAhead(rows, "the test rows", func(r schema.Record, e error) bool {
			if e != nil {
				err = e
				return false
			}
			ids = append(ids, string(r.TraceID))
			return len(ids) != stopAfter
		})
		return ids, err
	}
	n := 3*aheadBatch + 7
	rows := &scriptRows{n: n, failAt: -1, panicAt: -1}
	ids, err := read(rows, -1)
	if err != nil || len(ids) != n || !rows.closed {
		t.Fatalf("whole read: %d records of %d, err %v, closed %v", len(ids), n, err, rows.closed)
	}
	for i, id := range ids {
		if id != fmt.Sprintf("t%d", i) {
			t.Fatalf("record %d is %s: out of order", i, id)
		}
	}

	rows = &scriptRows{n: n, failAt: -1, panicAt: -1}
	if ids, _ := read(rows, 10); len(ids) != 10 || !rows.closed || rows.at > 10+(aheadBatches+2)*aheadBatch {
		t.Fatalf("stopped after 10: %d records, closed %v, %d rows scanned", len(ids), rows.closed, rows.at)
	}

	rows = &scriptRows{n: n, failAt: aheadBatch + 3, panicAt: -1}
	ids, err = read(rows, -1)
	if len(ids) != aheadBatch+3 || err == nil || !strings.Contains(err.Error(), "cannot read the test rows: connection reset") {
		t.Fatalf("a row failing: %d records before it, err %v", len(ids), err)
	}

	rows = &scriptRows{n: n, failAt: -1, panicAt: 5}
	func() {
		defer func() {
			if p := recover(); p != "scan broke" {
				t.Errorf("the decoding's panic reached the caller as %v", p)
			}
		}()
		read(rows, -1)
		t.Error("a panic while decoding was not raised")
	}()
	if !rows.closed {
		t.Error("rows not closed after a panic")
	}
}
