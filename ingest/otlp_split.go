package ingest

import (
	"runtime"
	"sync"
	"sync/atomic"

	"google.golang.org/protobuf/encoding/protowire"
)

// An OTLP export request is one message: pdata unmarshals it on one core,
// and so would the scrubber walk it. splitOTLP cuts a large body into
// requests of the same type, each a contiguous run of its records under
// copies of their resource and scope, so that scrubbing, unmarshalling
// and decoding run on every core, and the records come out in the order
// of the body. It checks the levels above the records as scrubOTLPProto
// does; a body that fails there is not split, so that pdata refuses it
// whole with its own error, as before.

// otlpSplitMin is the body size from which a protobuf body is split.
const otlpSplitMin = 512 << 10

// otlpGroup is one Scope{Logs,Spans} of a body: the fields of its resource
// and scope other than their lists, and its records' whole fields.
type otlpGroup struct {
	resource []pfield // fields of the Resource{Logs,Spans} but its scope lists
	scope    []pfield // fields of the Scope{Logs,Spans} but its records
	records  [][]byte // each record's whole field (tag, length, contents)
}

// otlpPart is one request cut from a body (its groups, each to be written
// as a resource with one scope; see encodeGroups) and how many records it
// holds.
type otlpPart struct {
	groups  []otlpGroup
	records int
}

// splitOTLP cuts body into at most n requests of about equal size; nil
// when body is under otlpSplitMin, holds too few records, or is not one
// the scrubber walks (its structure above the records is left to pdata).
func splitOTLP(body []byte, n int) []otlpPart {
	return splitOTLPAt(body, n, otlpSplitMin, parallelMinRecords)
}

// splitOTLPAt is splitOTLP for bodies of at least minBytes bytes, with
// parts of at least minRecords records.
func splitOTLPAt(body []byte, n, minBytes, minRecords int) []otlpPart {
	if n < 2 || len(body) < minBytes {
		return nil
	}
	groups, records, ok := otlpGroups(body)
	if !ok || records < 2*minRecords {
		return nil
	}
	n = min(n, records/minRecords)
	target := len(body)/n + 1
	var parts []otlpPart
	var cur []otlpGroup // the part being filled: groups, or runs of one group's records
	size, count := 0, 0
	flush := func() {
		if count > 0 {
			parts = append(parts, otlpPart{groups: cur, records: count})
		}
		cur, size, count = nil, 0, 0
	}
	for _, g := range groups {
		from := 0 // the first of g's records not yet in a part
		for j, r := range g.records {
			size += len(r)
			count++
			if size >= target && len(parts) < n-1 { // the last part takes what is left
				cur = append(cur, otlpGroup{resource: g.resource, scope: g.scope, records: g.records[from : j+1]})
				flush()
				from = j + 1
			}
		}
		if from < len(g.records) {
			cur = append(cur, otlpGroup{resource: g.resource, scope: g.scope, records: g.records[from:]})
		}
	}
	flush()
	if len(parts) < 2 {
		return nil
	}
	return parts
}

// otlpGroups walks body down to its records, checking what it passes as
// scrubOTLPProto does; ok is false when that check fails.
func otlpGroups(body []byte) (groups []otlpGroup, records int, ok bool) {
	ok = fields(body, func(f pfield) bool {
		if f.num != fResourceList {
			return true // no other field of the request is known: pdata skips it
		}
		if f.typ != protowire.BytesType || !wellTyped(f.val, listTypes) || !partTyped(f.val, fResource, resourceTypes) {
			return false
		}
		var res []pfield
		var scopes [][]byte
		if !fields(f.val, func(rf pfield) bool {
			switch {
			case rf.num == fScopeListOld:
				return false // the legacy layout: left to pdata
			case rf.num == fScopeList && rf.typ == protowire.BytesType:
				scopes = append(scopes, rf.val)
			default:
				res = append(res, rf)
			}
			return true
		}) {
			return false
		}
		for _, s := range scopes {
			if !wellTyped(s, listTypes) || !partTyped(s, fScope, scopeTypes) {
				return false
			}
			g := otlpGroup{resource: res}
			fields(s, func(sf pfield) bool {
				if sf.num == fRecords && sf.typ == protowire.BytesType {
					g.records = append(g.records, sf.full)
				} else {
					g.scope = append(g.scope, sf)
				}
				return true
			})
			records += len(g.records)
			if len(g.records) > 0 {
				groups = append(groups, g)
			}
		}
		return true
	})
	return groups, records, ok
}

// encodeGroups writes one export request holding groups, each as a
// resource with one scope.
func encodeGroups(groups []otlpGroup) []byte {
	scopeSizes := make([]int, len(groups))
	resSizes := make([]int, len(groups))
	total := 0
	for i, g := range groups {
		for _, f := range g.scope {
			scopeSizes[i] += len(f.full)
		}
		for _, r := range g.records {
			scopeSizes[i] += len(r)
		}
		for _, f := range g.resource {
			resSizes[i] += len(f.full)
		}
		resSizes[i] += protowire.SizeTag(fScopeList) + protowire.SizeBytes(scopeSizes[i])
		total += protowire.SizeTag(fResourceList) + protowire.SizeBytes(resSizes[i])
	}
	out := make([]byte, 0, total)
	for i, g := range groups {
		out = protowire.AppendTag(out, fResourceList, protowire.BytesType)
		out = protowire.AppendVarint(out, uint64(resSizes[i]))
		for _, f := range g.resource {
			out = append(out, f.full...)
		}
		out = protowire.AppendTag(out, fScopeList, protowire.BytesType)
		out = protowire.AppendVarint(out, uint64(scopeSizes[i]))
		for _, f := range g.scope {
			out = append(out, f.full...)
		}
		for _, r := range g.records {
			out = append(out, r...)
		}
	}
	return out
}

// otlpInParts decodes a large body split by splitOTLP on every core into
// sink: each part is scrubbed and unmarshalled at once, then decode runs
// on each part into a Batch of its own, in order (see inParts). It reports
// false, having added nothing, when sink is not a Batch, the body is not
// split, or a part is one pdata refuses; the caller then decodes the body
// whole, which gives pdata's error for the body as a whole.
func otlpInParts[T any](body []byte, spans bool, sink RecordSink, unmarshal func([]byte) (T, error),
	decode func(T, map[int]Reason, RecordSink)) bool {
	b, ok := sink.(*Batch)
	if !ok {
		return false
	}
	parts := splitOTLP(body, runtime.GOMAXPROCS(0))
	return parts != nil && decodeParts(b, parts, spans, unmarshal, decode)
}

// decodeParts is otlpInParts for a body split into parts.
func decodeParts[T any](b *Batch, parts []otlpPart, spans bool, unmarshal func([]byte) (T, error),
	decode func(T, map[int]Reason, RecordSink)) bool {
	reqs := make([]T, len(parts))
	bads := make([]map[int]Reason, len(parts))
	var failed atomic.Bool
	var wg sync.WaitGroup
	for i := range parts {
		wg.Go(func() {
			req, bad, _, err := parseOTLP(encodeGroups(parts[i].groups), spans, unmarshal)
			if err != nil {
				failed.Store(true)
				return
			}
			reqs[i], bads[i] = req, bad
		})
	}
	wg.Wait()
	if failed.Load() {
		return false
	}
	inParts(b, len(parts), func(i int) int { return parts[i].records }, func(i int, part *Batch) {
		decode(reqs[i], bads[i], part)
		var zero T
		reqs[i] = zero
	})
	return true
}
