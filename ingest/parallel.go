package ingest

import (
	"bytes"
	"runtime"
	"slices"
	"sync"
)

// parallelMin is the body size from which a body of lines is decoded on
// every core: below it, starting goroutines costs more than it saves.
const parallelMin = 512 << 10

// decodeLinesParallel decodes the newline-separated lines of data into b
// with decodeLine, cutting data at line boundaries into one part per core
// (GOMAXPROCS) decoded at once, each into a Batch of its own that shares
// b's limits and memory budget; the parts' records are then appended to b
// in input order, and their stats merged. The result is the one a
// sequential decode gives: decoding a line depends on no other line.
func decodeLinesParallel(data []byte, b *Batch, decodeLine func([]byte, RecordSink)) {
	var parts [][]byte
	if len(data) >= parallelMin {
		parts = splitLines(data, runtime.GOMAXPROCS(0))
	}
	if len(parts) < 2 {
		eachLine(data, func(line []byte) { decodeLine(line, b) })
		return
	}
	inParts(b, len(parts), func(i int) int { return bytes.Count(parts[i], []byte{'\n'}) + 1 },
		func(i int, sink *Batch) { eachLine(parts[i], func(line []byte) { decodeLine(line, sink) }) })
}

// parallelMinRecords is the number of records from which a decoded
// protobuf body (Loki, OTLP) has them built on every core.
const parallelMinRecords = 4096

// eachParallel calls each(i, sink) for i in [0, n) in order, as a
// sequential loop feeding sink would; when sink is a Batch and n is at
// least parallelMinRecords, contiguous ranges of i run on every core
// (see inParts). each must be safe to call concurrently.
func eachParallel(n int, sink RecordSink, each func(i int, sink RecordSink)) {
	b, ok := sink.(*Batch)
	workers := runtime.GOMAXPROCS(0)
	if !ok || n < parallelMinRecords || workers < 2 {
		for i := range n {
			each(i, sink)
		}
		return
	}
	per := (n + workers - 1) / workers
	inParts(b, workers, func(int) int { return per }, func(p int, part *Batch) {
		for i := p * per; i < min(n, (p+1)*per); i++ {
			each(i, part)
		}
	})
}

// inParts runs decode for parts 0..n-1 at once, each into a Batch of its
// own that shares b's limits and memory budget, then leaves their records
// in b in order and merges their stats. size(i) bounds the records of part
// i: the parts decode into adjacent regions of one array, compacted in
// place afterwards, so the records are not copied into a second one.
func inParts(b *Batch, n int, size func(int) int, decode func(i int, part *Batch)) {
	sizes, total := make([]int, n), 0
	for i := range n {
		sizes[i] = size(i)
		total += sizes[i]
	}
	base := len(b.Records)
	b.Records = slices.Grow(b.Records, total)
	all := b.Records[base : base+total]
	batches := make([]*Batch, n)
	var wg sync.WaitGroup
	off := 0
	for i := range n {
		batches[i] = &Batch{lim: b.lim, mem: b.mem, Records: all[off : off : off+sizes[i]]}
		off += sizes[i]
		wg.Add(1)
		go func() {
			defer wg.Done()
			decode(i, batches[i])
		}()
	}
	wg.Wait()
	for i, pb := range batches {
		if len(pb.Records) > sizes[i] {
			// A part outgrew its region (its records went to an array of
			// their own): moving them in place would overwrite the next
			// part's, so every part is copied to a new array instead.
			b.Records = slices.Clip(b.Records[:base])
			break
		}
	}
	for _, pb := range batches {
		// Moves left within the array, or copies to the new one.
		b.Records = append(b.Records, pb.Records...)
		b.Stats.Merge(pb.Stats)
	}
	clear(b.Records[len(b.Records):cap(b.Records)]) // what was moved away: let it be collected
}

// splitLines cuts data into at most n parts of about equal size, each
// ending after a newline (the last one at the end of data).
func splitLines(data []byte, n int) [][]byte {
	var parts [][]byte
	for n > 1 && len(data) > 0 {
		cut := len(data) / n
		i := bytes.IndexByte(data[cut:], '\n')
		if i < 0 {
			break
		}
		parts = append(parts, data[:cut+i+1])
		data = data[cut+i+1:]
		n--
	}
	if len(data) > 0 {
		parts = append(parts, data)
	}
	return parts
}
