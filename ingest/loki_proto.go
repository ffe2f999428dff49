package ingest

import (
	"github.com/faultline/faultline/schema"
	"github.com/grafana/loki/pkg/push"
	"google.golang.org/protobuf/encoding/protowire"
)

// LokiProto decodes one Loki push body in protobuf, already decompressed
// (the HTTP layer undoes snappy). A stream whose label set cannot be read
// has all its entries rejected as bad_protobuf; an entry whose timestamp
// Go cannot hold (before year 1, nanos out of range), which the push
// package would refuse the whole body for, is rejected alone as
// bad_timestamp. It returns ErrMalformed when the body is not a PushRequest.
func (dc *Decoder) LokiProto(data []byte, sink RecordSink) error {
	var req push.PushRequest
	if err := req.Unmarshal(scrubLokiTimes(data)); err != nil {
		return protoError("Loki push protobuf", data, err)
	}
	type item struct {
		labels []label
		e      *push.Entry
	}
	var items []item
	for si := range req.Streams {
		st := &req.Streams[si]
		labels, err := parseLabels(st.Labels)
		for i := range st.Entries {
			items = append(items, item{labels, &st.Entries[i]})
		}
		if err != nil {
			items = items[:len(items)-len(st.Entries)]
			for range st.Entries {
				sink.Reject(ReasonBadProto)
			}
		}
	}
	eachParallel(len(items), sink, func(i int, sink RecordSink) { dc.lokiProtoEntry(items[i].labels, *items[i].e, sink) })
	return nil
}

func (dc *Decoder) lokiProtoEntry(labels []label, e push.Entry, sink RecordSink) {
	if !schema.TimeInRange(e.Timestamp) {
		sink.Reject(ReasonBadTime)
		return
	}
	var meta []label
	for _, m := range e.StructuredMetadata {
		meta = append(meta, label{m.Name, m.Value})
	}
	dc.lokiEntry(labels, meta, e.Timestamp.UTC(), e.Line, sink)
}

// scrubLokiTimes returns a Loki PushRequest with the timestamp of every
// entry that the push package cannot turn into a time.Time (outside
// 0001..9999, nanos outside [0, 1e9)) removed, so that the entry reads
// with a zero time and is rejected alone. A body without one, or that is
// not protobuf, is returned unchanged.
func scrubLokiTimes(data []byte) []byte {
	bad := false
	var walk func(b []byte, out *[]byte, depth int) bool
	walk = func(b []byte, out *[]byte, depth int) bool {
		return fields(b, func(f pfield) bool {
			switch {
			case depth < 2 && f.num == lokiPath[depth] && f.typ == protowire.BytesType:
				return nested(out, f, func(b []byte, out *[]byte) bool { return walk(b, out, depth+1) })
			case depth == 2 && f.num == 1 && f.typ == protowire.BytesType && !lokiTimeOK(f.val):
				bad = true
				return true // dropped
			}
			emit(out, f, nil)
			return true
		})
	}
	if !walk(data, nil, 0) || !bad {
		return data
	}
	out := make([]byte, 0, len(data))
	if !walk(data, &out, 0) {
		return data
	}
	return out
}

// lokiPath is the way to an entry: PushRequest.streams, Stream.entries.
var lokiPath = [2]protowire.Number{1, 2}

// lokiTimeOK reports whether a google.protobuf.Timestamp is one the push
// package reads (its validateTimestamp).
func lokiTimeOK(b []byte) bool {
	const minSeconds, maxSeconds = -62135596800, 253402300800 // 0001-01-01, 10000-01-01
	var sec, nanos int64
	ok := fields(b, func(f pfield) bool {
		if f.typ != protowire.VarintType || f.num != 1 && f.num != 2 {
			return true
		}
		v, _ := protowire.ConsumeVarint(f.full[protowire.SizeTag(f.num):])
		if f.num == 1 {
			sec = int64(v)
		} else {
			nanos = int64(int32(v))
		}
		return true
	})
	return ok && sec >= minSeconds && sec < maxSeconds && nanos >= 0 && nanos < 1e9
}
