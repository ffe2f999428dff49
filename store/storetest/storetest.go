// Package storetest is the conformance suite every store backend runs:
// round trips of every field, trace lookups, window queries, all-or-nothing
// batches, retention, documents, and one writer with many readers.
//
// Sub-tests do not depend on backend internals and do not assume a fresh
// store: each uses its own trace ids, services and a time range of its own,
// so a shared server (ClickHouse) can run the suite while holding other data.
// A sub-test may delete records older than its own range (DeleteBefore), so
// a shared store should not hold data a concurrent test needs.
//
// Synth generates realistic records for benchmarks of every backend.
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"iter"
	"math/big"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store"
)

// Run runs the suite. open is called once per sub-test and returns the
// store to test (fresh or shared); the sub-test does not close it, open
// should register the Close with t.Cleanup.
func Run(t *testing.T, open func(t *testing.T) store.Store) {
	tests := []struct {
		name string
		f    func(*testing.T, store.Store, *env)
	}{
		{"RoundTrip", testRoundTrip},
		{"TraceLookup", testTraceLookup},
		{"TraceLimit", testTraceLimit},
		{"WindowOrderAndBounds", testWindowOrder},
		{"WindowService", testWindowService},
		{"WindowErrorsOnly", testWindowErrorsOnly},
		{"WindowLimit", testWindowLimit},
		{"WindowNewest", testWindowNewest},
		{"WindowEmpty", testWindowEmpty},
		{"WindowAttrs", testWindowAttrs},
		{"EarlyBreak", testEarlyBreak},
		{"EmptyBatch", testEmptyBatch},
		{"AllOrNothingBadRecord", testAllOrNothingBad},
		{"AllOrNothingCanceled", testAllOrNothingCanceled},
		{"DeleteBefore", testDeleteBefore},
		{"BoundsAndStats", testBoundsAndStats},
		{"Documents", testDocuments},
		{"OneWriterManyReaders", testConcurrent},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := open(t)
			tc.f(t, s, newEnv(t))
		})
	}
}

// env gives a sub-test names and times nobody else uses.
type env struct {
	nonce string
	base  time.Time // start of this sub-test's time range
	ctx   context.Context
}

func newEnv(t *testing.T) *env {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	// A random minute within about 19 years from 2001: the ranges of two
	// sub-tests (a few hours at most) practically never overlap.
	n, err := rand.Int(rand.Reader, big.NewInt(10_000_000))
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(n.Int64()) * time.Minute)
	return &env{nonce: hex.EncodeToString(b[:]), base: base, ctx: t.Context()}
}

// service is a service name unique to this sub-test.
func (e *env) service(name string) string { return name + "-" + e.nonce }

// traceID is a trace id unique to this sub-test.
func (e *env) traceID(t *testing.T) schema.TraceID {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	b[0] |= 1 // never all zero
	return schema.TraceID(hex.EncodeToString(b[:]))
}

// spanID is a random span id.
func (e *env) spanID(t *testing.T) schema.SpanID {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	b[0] |= 1
	return schema.SpanID(hex.EncodeToString(b[:]))
}

// at is the sub-test's base time plus d.
func (e *env) at(d time.Duration) time.Time { return e.base.Add(d) }

// collect drains seq, failing the test on an error.
func collect(t *testing.T, seq iter.Seq2[schema.Record, error]) []schema.Record {
	t.Helper()
	var out []schema.Record
	for r, err := range seq {
		if err != nil {
			t.Fatalf("iteration failed: %v", err)
		}
		out = append(out, r)
	}
	return out
}

func write(t *testing.T, s store.Store, e *env, recs []schema.Record) {
	t.Helper()
	if err := s.WriteBatch(e.ctx, recs); err != nil {
		t.Fatalf("WriteBatch(%d records): %v", len(recs), err)
	}
}
