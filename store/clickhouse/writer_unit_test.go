package clickhouse

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"

	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store/backend"
)

func TestBreaker(t *testing.T) {
	now := time.Unix(1000, 0)
	b := newBreaker(3, 10*time.Second)
	b.now = func() time.Time { return now }
	for i := range 2 {
		if !b.allow() {
			t.Fatalf("closed breaker refused call %d", i)
		}
		b.record(false)
	}
	b.record(true) // a success resets the count
	for range 3 {
		b.allow()
		b.record(false)
	}
	if st, fails, retry := b.status(); st != BreakerOpen || fails != 3 || !retry.Equal(now.Add(10*time.Second)) {
		t.Fatalf("after 3 failures: %s %d %v, want open until +10s", st, fails, retry)
	}
	if b.allow() {
		t.Error("an open breaker let a call through")
	}
	now = now.Add(10 * time.Second)
	if !b.allow() {
		t.Fatal("after openFor the breaker let no probe through")
	}
	if b.allow() {
		t.Error("a half-open breaker let a second call through while probing")
	}
	b.record(false)
	if st, _, _ := b.status(); st != BreakerOpen {
		t.Fatalf("a failed probe left the breaker %s, want open", st)
	}
	now = now.Add(10 * time.Second)
	b.allow()
	b.record(true)
	if st, fails, _ := b.status(); st != BreakerClosed || fails != 0 {
		t.Errorf("a good probe left the breaker %s with %d failures, want closed with 0", st, fails)
	}
}

func TestBackoff(t *testing.T) {
	base, max := 100*time.Millisecond, 2*time.Second
	for n, want := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 4: 800 * time.Millisecond, 10: 2 * time.Second} {
		seen := map[time.Duration]bool{}
		for range 200 {
			d := backoff(n, base, max)
			if d < want/2 || d > want {
				t.Fatalf("backoff(%d) = %v, want within [%v, %v]", n, d, want/2, want)
			}
			seen[d] = true
		}
		if len(seen) < 10 {
			t.Errorf("backoff(%d) took only %d distinct values in 200 draws: no jitter", n, len(seen))
		}
	}
}

func TestTransient(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&clickhouse.Exception{Code: 252, Name: "DB::Exception", Message: "Too many parts"}, true},
		{fmt.Errorf("insert: %w", &clickhouse.Exception{Code: 159}), true},
		{&clickhouse.Exception{Code: 62, Message: "Syntax error"}, false},
		{&clickhouse.Exception{Code: 53, Message: "Type mismatch"}, false},
		{&clickhouse.Exception{Code: 516, Message: "Authentication failed"}, false},
		{&clickhouse.Exception{Code: 469, Message: "Constraint violated"}, false},
		{&clickhouse.HTTPError{StatusCode: 502, Err: errors.New("bad gateway")}, true},
		{&net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, true},
		{fmt.Errorf("send: %w", io.ErrUnexpectedEOF), true},
		{context.DeadlineExceeded, true},
		{errors.New("dial tcp 127.0.0.1:9000: connect: connection refused"), true},
		{errors.New("clickhouse: unsupported column type"), false},
		{nil, false},
	} {
		if got := transient(tc.err); got != tc.want {
			t.Errorf("transient(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

func TestValidate(t *testing.T) {
	ok := schema.Record{Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	for name, r := range map[string]schema.Record{
		"zero time": {}, "year 3000": {Time: time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)},
		"before 1970": {Time: time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC)}, "bad type": {Time: ok.Time, Type: 7},
	} {
		if err := validate([]schema.Record{ok, r}); !errors.Is(err, backend.ErrBadRecord) {
			t.Errorf("%s: validate = %v, want ErrBadRecord", name, err)
		}
	}
	if err := validate([]schema.Record{ok}); err != nil {
		t.Errorf("a good record: %v", err)
	}
}

// TestSpoolBound fills a small spool until it refuses, then checks that the
// order survives a reopen and removal frees room.
func TestSpoolBound(t *testing.T) {
	dir := t.TempDir()
	sp, err := openSpool(dir, 2000)
	if err != nil {
		t.Fatal(err)
	}
	rec := schema.Record{Time: time.Unix(1, 0).UTC(), Body: string(make([]byte, 300)), Attrs: map[string]string{"k": "\xff\x00"}}
	added := 0
	for i := range 100 {
		err := sp.add(&entry{ID: fmt.Sprintf("%032x", i), Records: []schema.Record{rec}})
		if errors.Is(err, ErrSpoolFull) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		added++
	}
	if added == 0 || added == 100 {
		t.Fatalf("the spool took %d batches before ErrSpoolFull", added)
	}
	sp2, err := openSpool(dir, 2000)
	if err != nil {
		t.Fatal(err)
	}
	if n, b := sp2.stats(); n != added || b < 2000 {
		t.Errorf("after reopening: %d batches, %d bytes; want %d batches over the bound", n, b, added)
	}
	head, err := sp2.head()
	if err != nil || head.ID != fmt.Sprintf("%032x", 0) || head.Records[0].Attrs["k"] != "\xff\x00" {
		t.Fatalf("head = %+v, %v: want the first batch, bytes intact", head, err)
	}
	if err := sp2.remove(head); err != nil {
		t.Fatal(err)
	}
	if err := sp2.add(&entry{ID: fmt.Sprintf("%032x", 999), Records: []schema.Record{rec}}); err != nil {
		t.Errorf("after a removal the spool still refuses: %v", err)
	}
	if next, _ := sp2.head(); next.ID != fmt.Sprintf("%032x", 1) {
		t.Errorf("after removing the head, the next is %s, want batch 1", next.ID)
	}
}
