package sqlite

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/klauspost/compress/zstd"

	"github.com/faultline/faultline/schema"
)

// Records are stored in blocks (schema version 2): the records of one
// batch are split by their alert flag (so that an ErrorsOnly window reads
// only the blocks of alert records), sorted by time, cut into blocks of at
// most blockRecords records or about blockBytes encoded bytes, and each
// block compressed with zstd. Next to each block the blocks table keeps
// its time range, alert flag and services (what window queries filter on)
// and block_traces one row per trace id in it (what a trace lookup needs).
// Measured on realistic lines (scripts/bench-vs-victorialogs.sh), a record
// then takes about a seventh of the bytes of its row-per-record
// predecessor (four indexes per record), and writing it a fraction of the
// CPU. zstd's fastest level compressed those lines within 1% of its
// default level, in half the CPU.
//
// The uncompressed payload of a block:
//
//	uvarint count
//	count entries, in (time, batch order): uvarint idx, uvarint len, the record (codec.go)
//
// idx is the record's position in its batch; with the block's bseq (the id
// of the first block of its batch) it orders records of equal time, and a
// trace's records, in insertion order.
//
// A block of 2×frameMinRecords records or more is sharded: its records
// are split by trace into frames, each a payload as above compressed on
// its own, so that a read of some traces decompresses only their frames
// (a window's sample of 1 in n traces or fewer, or one trace: the frame of
// its shard and that of the records without a trace, or that shard's
// alone). Its data is
//
//	shardMagic, uvarint n, uvarint frames, frames × (uvarint shard, uvarint length), the frames
//
// n being a power of two up to maxShards, and shard 0 for the records
// without a trace, 1 + the trace's schema.TraceHash modulo n for the
// others (shardOf). Each frame's entries are in (time, batch order), and
// a read of several merges them so. A frame restarts zstd's window: on
// the blocks of a simulated incident, n = 4 took 9% more bytes than one
// frame, 16 took 31%, so n is what gives frames of frameMinRecords or
// more (shardsOf). A block of fewer records is one zstd frame, as every
// block of a file written before sharding is: the two are told apart by
// their first bytes.
const (
	blockRecords    = 2048
	blockBytes      = 1 << 20
	maxShards       = 16
	frameMinRecords = 384
)

// shardMagic begins a sharded block's data; a zstd frame begins with
// 28 B5 2F FD.
const shardMagic = "FLS\x01"

// shardsOf is the number of trace shards of a block of n records.
func shardsOf(n int) int {
	s := 1
	for s < maxShards && 2*s*frameMinRecords <= n {
		s *= 2
	}
	return s
}

// shardOf is the frame of a block sharded n ways that holds the records
// of trace id.
func shardOf(id schema.TraceID, n int) int {
	if id == "" {
		return 0
	}
	return 1 + int(schema.TraceHash(id)%uint64(n))
}

// block is one block ready to insert.
type block struct {
	minTS, maxTS int64
	firstTS      *int64 // minimum non-zero time; nil when every record has a zero Time
	alert        int64
	n            int
	services     string  // "\x00svc\x00other\x00": see servicesKey
	traces       []int64 // distinct trace keys (traceKey8)
	data         []byte  // zstd frame of the payload
}

// entry is one record of a decompressed block.
type entry struct {
	ts  int64
	idx uint64
	rec string // the record's encoding; a substring of the block's payload
}

// codecs holds the zstd encoder and decoder of a DB; both are safe for
// concurrent use.
type codecs struct {
	enc *zstd.Encoder
	dec *zstd.Decoder
	// payloads recycles the buffers of uncompressed payloads between
	// blocks (*[]byte): a payload is garbage once compressed.
	payloads sync.Pool
	// decoded counts the blocks decoded, for the tests of what a read
	// leaves unread.
	decoded atomic.Int64
	// inflated counts the zstd frames decompressed (a sharded block has
	// several), for the tests of what a read leaves compressed.
	inflated atomic.Int64
}

// newCodecs makes a DB's zstd encoder (nil for a reader) and decoder.
func newCodecs(write bool) (*codecs, error) {
	n := runtime.GOMAXPROCS(0)
	c := &codecs{}
	var err error
	if write {
		c.enc, err = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(n),
			zstd.WithWindowSize(blockBytes*2), zstd.WithEncoderCRC(true))
		if err != nil {
			return nil, err
		}
	}
	c.dec, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(n), zstd.WithDecoderMaxMemory(64<<20))
	if err != nil {
		return nil, err
	}
	return c, nil
}

func (c *codecs) close() {
	if c == nil {
		return
	}
	if c.enc != nil {
		c.enc.Close()
	}
	c.dec.Close()
}

// unsafeString views a buffer nothing else references or writes as a string.
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// traceKey8 is the trace id's key in block_traces: for a canonical id the
// XOR of its two halves (a 64-bit id padded with zeros to 128 bits keeps
// its bits), an FNV-64a hash of the text otherwise. Keys may collide; a
// lookup checks the ids of the records it decodes.
func traceKey8(id schema.TraceID) int64 {
	if isLowerHex(string(id), 32) {
		b := id.Bytes16()
		return int64(binary.BigEndian.Uint64(b[:8]) ^ binary.BigEndian.Uint64(b[8:]))
	}
	h := fnv.New64a()
	h.Write([]byte(id))
	return int64(h.Sum64())
}

// servicesKey is the form of one service in blocks.services.
func servicesKey(s string) string { return "\x00" + s + "\x00" }

// encoded is one stored record, encoded, with what a block's index needs
// of it: its service and trace id.
type encoded struct {
	ts             int64
	idx            int
	alert          bool
	rec            []byte
	service, trace string
}

// buildBlocks encodes and compresses a batch into blocks. The batch is
// cut into blocks first, then each block is encoded and compressed on its
// own goroutine, so that one big batch uses every core.
func (c *codecs) buildBlocks(recs []schema.Record) ([]*block, error) {
	// Times, sizes and alert flags on every core, a chunk of records each.
	ts, sizes, alert := make([]int64, len(recs)), make([]int, len(recs)), make([]bool, len(recs))
	const chunk = 4096
	errs := make([]error, (len(recs)+chunk-1)/chunk)
	parallel(len(errs), func(k int) {
		for i := k * chunk; i < min(len(recs), (k+1)*chunk); i++ {
			r := &recs[i]
			t, err := timeToNanos(r.Time)
			if err != nil {
				errs[k] = fmt.Errorf("record %d: %w", i, err)
				return
			}
			ts[i], sizes[i], alert[i] = t, recordSize(r), alertFlag(r) == 1
		}
	})
	for _, err := range errs {
		if err != nil {
			return nil, err // the first record's, as one loop would find
		}
	}
	var alerts, others []int
	for i := range recs {
		if alert[i] {
			alerts = append(alerts, i)
		} else {
			others = append(others, i)
		}
	}
	// In time order before cutting, so that each block covers a stretch
	// of time: a body grouped by stream (a Loki push, an OTLP export by
	// resource) then gives blocks that hold whole traces, as one in time
	// order does, rather than one stream's part of every trace.
	byTime := func(a, b int) int { return cmp.Compare(ts[a], ts[b]) }
	slices.SortStableFunc(alerts, byTime)
	slices.SortStableFunc(others, byTime)
	groups := append(cutBlocks(sizes, alerts), cutBlocks(sizes, others)...)
	blocks := make([]*block, len(groups))
	parallel(len(groups), func(g int) { blocks[g] = c.batchBlock(recs, ts, groups[g]) })
	return blocks, nil
}

// batchBlock makes the block of records idxs of recs (in time order), encoding
// them straight into the payloads of its frames.
func (c *codecs) batchBlock(recs []schema.Record, ts []int64, cut blockCut) *block {
	idxs := cut.idxs
	pp, _ := c.payloads.Get().(*[]byte)
	if pp == nil {
		pp = new([]byte)
	}
	defer c.payloads.Put(pp)
	b := &block{minTS: ts[idxs[0]], maxTS: ts[idxs[len(idxs)-1]], n: len(idxs), alert: alertFlag(&recs[idxs[0]])}
	var services []string
	traces := make(map[int64]struct{})
	for _, i := range idxs {
		r := &recs[i]
		b.noteTime(ts[i])
		if !slices.Contains(services, r.Service) {
			services = append(services, r.Service)
		}
		if r.TraceID != "" {
			traces[traceKey8(r.TraceID)] = struct{}{}
		}
	}
	b.setIndex(services, traces)
	var scratch [binary.MaxVarintLen64]byte
	b.data = c.frames(len(idxs), func(k int) schema.TraceID { return recs[idxs[k]].TraceID },
		func(p []byte, ks []int) []byte {
			p = binary.AppendUvarint(p, uint64(len(ks)))
			p = slices.Grow(p, cut.size*len(ks)/len(idxs)+len(ks)*2*binary.MaxVarintLen64)
			for _, k := range ks {
				i := idxs[k]
				p = binary.AppendUvarint(p, uint64(i))
				// The record's length goes before it: encode after room for the
				// longest length, then move the record left to close the gap.
				at := len(p)
				p = append(p, scratch[:]...)
				p = encodeRecord(p, &recs[i], ts[i])
				n := len(p) - at - len(scratch)
				w := copy(scratch[:], binary.AppendUvarint(scratch[:0], uint64(n)))
				copy(p[at:], scratch[:w])
				copy(p[at+w:], p[at+len(scratch):])
				p = p[:at+w+n]
			}
			return p
		}, pp)
	return b
}

// noteTime keeps the least non-zero time of the block's records.
func (b *block) noteTime(ts int64) {
	if ts != zeroTime && (b.firstTS == nil || ts < *b.firstTS) {
		t := ts
		b.firstTS = &t
	}
}

// frames compresses the block of n records (in time order), the k-th of
// trace(k): one frame of them all, or when shardsOf(n) > 1 a sharded
// block of a frame per shardOf. payload appends the
// payload of records ks (in time order) to p; *pp is its scratch buffer.
func (c *codecs) frames(n int, trace func(k int) schema.TraceID, payload func(p []byte, ks []int) []byte, pp *[]byte) []byte {
	all := make([]int, n)
	for k := range all {
		all[k] = k
	}
	ns := shardsOf(n)
	if ns == 1 {
		p := payload((*pp)[:0], all)
		*pp = p
		return c.enc.EncodeAll(p, make([]byte, 0, len(p)/4))
	}
	of := make([]int, n)
	for k := range of {
		of[k] = shardOf(trace(k), ns)
	}
	// Stable: a shard's records stay in time order.
	slices.SortStableFunc(all, func(a, b int) int { return cmp.Compare(of[a], of[b]) })
	var head []byte
	var body []byte
	frames := 0
	for len(all) > 0 {
		j := 1
		for j < len(all) && of[all[j]] == of[all[0]] {
			j++
		}
		p := payload((*pp)[:0], all[:j])
		*pp = p
		at := len(body)
		body = c.enc.EncodeAll(p, body)
		head = binary.AppendUvarint(head, uint64(of[all[0]]))
		head = binary.AppendUvarint(head, uint64(len(body)-at))
		frames++
		all = all[j:]
	}
	out := make([]byte, 0, len(shardMagic)+binary.MaxVarintLen64+len(head)+len(body))
	out = append(out, shardMagic...)
	out = binary.AppendUvarint(out, uint64(ns))
	out = binary.AppendUvarint(out, uint64(frames))
	out = append(out, head...)
	return append(out, body...)
}

// setIndex sets b's services and traces.
func (b *block) setIndex(services []string, traces map[int64]struct{}) {
	slices.Sort(services)
	b.services = "\x00" + strings.Join(services, "\x00") + "\x00"
	b.traces = make([]int64, 0, len(traces))
	for k := range traces {
		b.traces = append(b.traces, k)
	}
	slices.Sort(b.traces)
}

// recordSize estimates the encoded size of r.
func recordSize(r *schema.Record) int {
	n := 64 + len(r.TraceID) + len(r.SpanID) + len(r.ParentSpanID) + len(r.Service) + len(r.SeverityText) +
		len(r.Body) + len(r.Name) + len(r.Template) + len(r.Signature)
	for k, v := range r.Attrs {
		n += len(k) + len(v) + 4
	}
	return n
}

// blockCut is one block's records, and about the bytes they encode to.
type blockCut struct {
	idxs []int
	size int
}

// cutBlocks cuts the records idxs into runs of at most blockRecords
// records and about blockBytes bytes, sizes being their recordSize.
func cutBlocks(sizes []int, idxs []int) []blockCut {
	var out []blockCut
	for len(idxs) > 0 {
		n, size := 0, 0
		for n < len(idxs) && n < blockRecords && size <= blockBytes {
			size += sizes[idxs[n]]
			n++
		}
		out = append(out, blockCut{idxs[:n:n], size})
		idxs = idxs[n:]
	}
	return out
}

// parallel runs f(0..n-1) on up to GOMAXPROCS goroutines.
func parallel(n int, f func(int)) {
	workers := min(n, runtime.GOMAXPROCS(0))
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	next := 0
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= n {
					return
				}
				f(i)
			}
		}()
	}
	wg.Wait()
}

// makeBlock sorts encs by (time, idx), writes the payloads and compresses
// them: for records already encoded (retention rewriting a block).
func (c *codecs) makeBlock(encs []encoded) *block {
	slices.SortStableFunc(encs, func(a, b encoded) int { return cmp.Compare(a.ts, b.ts) })
	b := &block{minTS: encs[0].ts, maxTS: encs[len(encs)-1].ts, n: len(encs)}
	if encs[0].alert {
		b.alert = 1
	}
	var services []string
	traces := make(map[int64]struct{})
	for _, e := range encs {
		b.noteTime(e.ts)
		if !slices.Contains(services, e.service) {
			services = append(services, e.service)
		}
		if e.trace != "" {
			traces[traceKey8(schema.TraceID(e.trace))] = struct{}{}
		}
	}
	b.setIndex(services, traces)
	b.data = c.frames(len(encs), func(k int) schema.TraceID { return schema.TraceID(encs[k].trace) },
		func(p []byte, ks []int) []byte { return encodedPayload(p, encs, ks) }, new([]byte))
	return b
}

// encodedPayload appends the payload of records ks of encs to p.
func encodedPayload(p []byte, encs []encoded, ks []int) []byte {
	p = binary.AppendUvarint(p, uint64(len(ks)))
	for _, k := range ks {
		e := &encs[k]
		p = binary.AppendUvarint(p, uint64(e.idx))
		p = binary.AppendUvarint(p, uint64(len(e.rec)))
		p = append(p, e.rec...)
	}
	return p
}

// decodeBlock decompresses a block's data into its entries, in stored
// order (time, then insertion). The entries' rec strings share one fresh
// buffer.
func (c *codecs) decodeBlock(data []byte) ([]entry, error) {
	return c.decodeFrames(data, nil)
}

// decodeFrames is decodeBlock of the frames of a sharded block that want
// takes (by shard of n, see shardOf), or of every frame when want is nil;
// a block of one frame is decoded whole.
func (c *codecs) decodeFrames(data []byte, want func(shard, n int) bool) ([]entry, error) {
	c.decoded.Add(1)
	if !strings.HasPrefix(unsafeString(data), shardMagic) {
		c.inflated.Add(1)
		p, err := c.dec.DecodeAll(data, nil)
		if err != nil {
			return nil, corrupt(err)
		}
		return parseEntries(p)
	}
	d := decoder{s: unsafeString(data[len(shardMagic):])}
	ns, n := d.uvarint(), d.uvarint()
	if n > uint64(len(d.s)) || ns == 0 || ns > maxShards {
		return nil, errCorrupt
	}
	type frame struct{ shard, size uint64 }
	frames := make([]frame, n)
	for i := range frames {
		frames[i] = frame{d.uvarint(), d.uvarint()}
	}
	if d.err != nil {
		return nil, errCorrupt
	}
	body := data[len(data)-len(d.s):]
	var parts [][]entry
	total := 0
	for _, f := range frames {
		if f.size > uint64(len(body)) {
			return nil, errCorrupt
		}
		z := body[:f.size]
		body = body[f.size:]
		if want != nil && !want(int(f.shard), int(ns)) {
			continue
		}
		c.inflated.Add(1)
		p, err := c.dec.DecodeAll(z, nil)
		if err != nil {
			return nil, corrupt(err)
		}
		entries, err := parseEntries(p)
		if err != nil {
			return nil, err
		}
		parts = append(parts, entries)
		total += len(entries)
	}
	if len(body) != 0 {
		return nil, errCorrupt
	}
	return mergeFrames(parts, total), nil
}

// mergeFrames merges frames' entries, each in (time, batch order), into
// one run in that order.
func mergeFrames(parts [][]entry, total int) []entry {
	switch len(parts) {
	case 0:
		return nil
	case 1:
		return parts[0]
	}
	out := make([]entry, 0, total)
	for {
		best := -1
		for i, p := range parts {
			if len(p) > 0 && (best < 0 || p[0].ts < parts[best][0].ts || p[0].ts == parts[best][0].ts && p[0].idx < parts[best][0].idx) {
				best = i
			}
		}
		if best < 0 {
			return out
		}
		out = append(out, parts[best][0])
		parts[best] = parts[best][1:]
	}
}

// parseEntries reads a payload; it is not copied (see decodeRecord).
func parseEntries(p []byte) ([]entry, error) {
	d := decoder{s: unsafeString(p)}
	n := d.uvarint()
	if n > uint64(len(d.s)) {
		return nil, errCorrupt
	}
	out := make([]entry, 0, n)
	for i := uint64(0); i < n && d.err == nil; i++ {
		idx := d.uvarint()
		rec := d.str()
		out = append(out, entry{ts: recTime(rec), idx: idx, rec: rec})
	}
	if d.err != nil || len(d.s) != 0 {
		return nil, errCorrupt
	}
	return out, nil
}

// recTime reads the time of an encoded record without decoding the rest
// (after the version, type and status bytes); zeroTime when unreadable,
// which the full decode then reports.
func recTime(rec string) int64 {
	if len(rec) < 4 {
		return zeroTime
	}
	d := decoder{s: rec[3:]}
	return d.varint()
}
