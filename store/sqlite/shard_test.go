package sqlite

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
)

// shardBatch is a batch of n records of many traces, a tenth of them
// without a trace and some alerts, in no order of time.
func shardBatch(seed uint64, n int) []schema.Record {
	rng := rand.New(rand.NewPCG(seed, 7))
	recs := make([]schema.Record, n)
	for i := range recs {
		r := schema.Record{Time: blockBase.Add(time.Duration(rng.IntN(60_000)) * time.Millisecond),
			Service: fmt.Sprintf("svc-%d", rng.IntN(5)), Severity: schema.SeverityInfo, Body: fmt.Sprintf("s%d-r%d", seed, i)}
		if rng.IntN(10) > 0 {
			r.TraceID = schema.TraceID(fmt.Sprintf("%032x", rng.IntN(n/4)+int(seed)<<20))
			r.SpanID = schema.SpanID(fmt.Sprintf("%016x", i))
		}
		if rng.IntN(20) == 0 {
			r.Severity = schema.SeverityError
		}
		recs[i] = r
	}
	return recs
}

// TestShardedBlocks: a block of many records is stored as a frame per
// shard of its traces, and every read gives what it gave of one frame: a
// window in (time, insertion) order, a trace in insertion order, a
// window's sample the records the process's hash picks. A trace's read
// and a sample's decompress only the frames that may hold them.
func TestShardedBlocks(t *testing.T) {
	db, err := Open(t.Context(), filepath.Join(t.TempDir(), "s.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var want []schema.Record
	for b := range 3 {
		recs := shardBatch(uint64(b+1), 3000)
		if err := db.WriteBatch(t.Context(), recs); err != nil {
			t.Fatal(err)
		}
		want = append(want, recs...)
	}
	var sharded, blocks int
	if err := db.r.QueryRowContext(t.Context(), `SELECT count(*), coalesce(sum(substr(data, 1, 4) = ?), 0) FROM block_data`, []byte(shardMagic)).Scan(&blocks, &sharded); err != nil {
		t.Fatal(err)
	}
	if sharded == 0 || sharded == blocks {
		t.Fatalf("%d of %d blocks sharded: want the big ones (%d records or more) and not the small", sharded, blocks, 2*frameMinRecords)
	}
	slices.SortStableFunc(want, func(a, b schema.Record) int { return a.Time.Compare(b.Time) })
	same := func(a, b schema.Record) bool {
		return a.Body == b.Body && a.TraceID == b.TraceID && a.Time.Equal(b.Time)
	}
	window := schema.WindowQuery{From: blockBase, To: blockBase.Add(time.Hour), Limit: 1 << 20}
	f0 := db.zstd.inflated.Load()
	got := collect(t, db.WindowRecords(t.Context(), window))
	if !slices.EqualFunc(got, want, same) {
		t.Fatalf("the window's read gives %d records, not the %d written in (time, insertion) order", len(got), len(want))
	}
	whole := db.zstd.inflated.Load() - f0

	// Traces, in insertion order, each from one frame of each of its blocks.
	byTrace := map[schema.TraceID][]schema.Record{}
	for _, r := range want {
		byTrace[r.TraceID] = append(byTrace[r.TraceID], r)
	}
	ids := slices.SortedFunc(func(yield func(schema.TraceID) bool) {
		for id := range byTrace {
			if id != "" && !yield(id) {
				return
			}
		}
	}, func(a, b schema.TraceID) int { return cmp.Compare(a, b) })
	for _, id := range ids[:50] {
		wantTrace := slices.Clone(byTrace[id])
		slices.SortStableFunc(wantTrace, func(a, b schema.Record) int { return cmp.Compare(a.Body, b.Body) }) // insertion order within a batch
		d0, f0 := db.zstd.decoded.Load(), db.zstd.inflated.Load()
		gotTrace := collect(t, db.TraceRecords(t.Context(), id, 0))
		slices.SortStableFunc(gotTrace, func(a, b schema.Record) int { return cmp.Compare(a.Body, b.Body) })
		if !slices.EqualFunc(gotTrace, wantTrace, same) {
			t.Fatalf("trace %s: %d records read, %d written", id, len(gotTrace), len(wantTrace))
		}
		if d, f := db.zstd.decoded.Load()-d0, db.zstd.inflated.Load()-f0; f != d {
			t.Errorf("trace %s: %d frames decompressed of %d blocks; want one a block", id, f, d)
		}
	}

	// A sample: the records the process's hash picks, from the frames of
	// its traces alone (of a block sharded 4 ways, a 1-in-4 sample or
	// sparser decompresses 2 frames of 5: the records without a trace and
	// one shard).
	for _, k := range []uint64{2, 4, 64} {
		var wantSample []schema.Record
		for _, r := range want {
			if r.TraceID == "" || r.IsAlert() || schema.TraceHash(r.TraceID)%k == 0 {
				wantSample = append(wantSample, r)
			}
		}
		f0 := db.zstd.inflated.Load()
		got := collect(t, db.SampledRecords(t.Context(), window, k, k, nil))
		if !slices.EqualFunc(got, wantSample, same) {
			t.Errorf("1 in %d: the store yields %d records, the process's hash picks %d", k, len(got), len(wantSample))
		}
		f := db.zstd.inflated.Load() - f0
		if k >= 4 && 3*f >= 2*whole || f >= whole {
			t.Errorf("1 in %d: %d frames decompressed, against %d for the whole window", k, f, whole)
		}
	}
}

// TestShardedBlockRewrite: a sharded block rewritten from its records
// (retention's makeBlock) is sharded and holds them in the same order; a
// block of one frame of as many records, as files written before sharding
// hold, reads as it did.
func TestShardedBlockRewrite(t *testing.T) {
	c, err := newCodecs(true)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	recs := shardBatch(9, 1000)
	blocks, err := c.buildBlocks(recs)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range blocks {
		entries, err := c.decodeBlock(b.data)
		if err != nil {
			t.Fatal(err)
		}
		encs := make([]encoded, len(entries))
		for i, e := range entries {
			encs[i] = encoded{ts: e.ts, idx: int(e.idx), alert: b.alert == 1, rec: []byte(e.rec), trace: recTrace(e.rec)}
		}
		again, err := c.decodeBlock(c.makeBlock(slices.Clone(encs)).data)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(again, entries) {
			t.Fatalf("a block of %d records rewritten holds %d, or in another order", len(entries), len(again))
		}
		if shardsOf(len(entries)) == 1 {
			continue
		}
		if string(b.data[:len(shardMagic)]) != shardMagic {
			t.Errorf("a block of %d records is not sharded", len(entries))
		}
		// The same records as one frame, as before sharding.
		p := binaryPayload(encs)
		old, err := c.decodeFrames(c.enc.EncodeAll(p, nil), func(int, int) bool { return false })
		if err != nil || !slices.Equal(old, entries) {
			t.Errorf("a block of one frame of %d records reads as %d, %v", len(entries), len(old), err)
		}
	}
	if _, err := c.decodeBlock([]byte(shardMagic + "\x05\x01")); err == nil {
		t.Error("a truncated sharded block was read")
	}
}

// binaryPayload is the payload of encs as one frame holds it.
func binaryPayload(encs []encoded) []byte {
	all := make([]int, len(encs))
	for i := range all {
		all[i] = i
	}
	return encodedPayload(nil, encs, all)
}
