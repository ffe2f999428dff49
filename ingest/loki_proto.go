package ingest

import (
	"github.com/grafana/loki/pkg/push"
)

// LokiProto decodes one Loki push body in protobuf, already decompressed
// (the HTTP layer undoes snappy). A stream whose label set cannot be read
// has all its entries rejected as bad_protobuf. It returns ErrMalformed
// when the body is not a PushRequest.
func (dc *Decoder) LokiProto(data []byte, sink RecordSink) error {
	var req push.PushRequest
	if err := req.Unmarshal(data); err != nil {
		return protoError("Loki push protobuf", data, err)
	}
	for _, st := range req.Streams {
		labels, err := parseLabels(st.Labels)
		if err != nil {
			for range st.Entries {
				sink.Reject(ReasonBadProto)
			}
			continue
		}
		for _, e := range st.Entries {
			dc.lokiProtoEntry(labels, e, sink)
		}
	}
	return nil
}

func (dc *Decoder) lokiProtoEntry(labels []label, e push.Entry, sink RecordSink) {
	if e.Timestamp.IsZero() || e.Timestamp.Year() < 1971 || e.Timestamp.Year() > 2200 {
		sink.Reject(ReasonBadTime)
		return
	}
	var meta []label
	for _, m := range e.StructuredMetadata {
		meta = append(meta, label{m.Name, m.Value})
	}
	dc.lokiEntry(labels, meta, e.Timestamp.UTC(), e.Line, sink)
}
