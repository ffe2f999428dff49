package ingest

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/faultline/faultline/schema"
)

type lokiJSONStream struct {
	Stream map[string]string   `json:"stream"`
	Values [][]json.RawMessage `json:"values"`
}

type lokiJSONBody struct {
	Streams []lokiJSONStream `json:"streams"`
}

// LokiJSON decodes one Loki push body in JSON:
// {"streams":[{"stream":{labels},"values":[["<unix ns>","<line>"(,{metadata})]]}]}.
// An entry that is not a [timestamp, line(, metadata)] array is rejected as
// bad_json, one with an unreadable timestamp as bad_timestamp. It returns
// ErrMalformed when the body is not such a document.
func (dc *Decoder) LokiJSON(data []byte, sink RecordSink) error {
	data = trimBOM(data)
	var body lokiJSONBody
	if err := json.Unmarshal(data, &body); err != nil {
		if isGzip(data) {
			return errGzipHint(err)
		}
		return badInput(ErrMalformed, err, "body is not valid Loki push JSON: %s", jsonReason(err))
	}
	ref := firstLokiTime(body)
	for _, st := range body.Streams {
		labels := make([]label, 0, len(st.Stream))
		for k, v := range st.Stream {
			labels = append(labels, label{k, v})
		}
		for _, v := range st.Values {
			dc.lokiJSONEntry(labels, v, ref, sink)
		}
	}
	return nil
}

// lokiJSONEntry decodes one [timestamp, line(, metadata)] entry. An
// unreadable timestamp falls back to the one the line starts with
// (a time of day alone takes its date from ref, the body's first good
// timestamp); without either the entry is rejected as bad_timestamp.
func (dc *Decoder) lokiJSONEntry(labels []label, v []json.RawMessage, ref time.Time, sink RecordSink) {
	if len(v) < 2 || len(v) > 3 {
		sink.Reject(ReasonBadJSON)
		return
	}
	var tsText, line string
	if json.Unmarshal(v[0], &tsText) != nil {
		tsText = strings.TrimSpace(string(v[0])) // tolerate a bare number
	}
	if err := json.Unmarshal(v[1], &line); err != nil {
		sink.Reject(ReasonBadJSON)
		return
	}
	ts, ok := lokiTime(tsText)
	if !ok {
		ts, ok = lineTime(line, ref)
	}
	if !ok {
		sink.Reject(ReasonBadTime)
		return
	}
	var meta []label
	if len(v) == 3 {
		var m map[string]string
		if err := json.Unmarshal(v[2], &m); err != nil {
			sink.Reject(ReasonBadJSON)
			return
		}
		for k, val := range m {
			meta = append(meta, label{k, val})
		}
	}
	dc.lokiEntry(labels, meta, ts, line, sink)
}

// lokiTime reads a Loki timestamp: unix nanoseconds as a decimal string
// (or, tolerated, seconds or milliseconds by magnitude, or RFC 3339).
func lokiTime(s string) (time.Time, bool) {
	t, ok := parseTime(s)
	if !ok || !schema.TimeInRange(t) {
		return time.Time{}, false
	}
	return t, true
}

// firstLokiTime is the first readable entry timestamp of body (zero if none).
func firstLokiTime(body lokiJSONBody) time.Time {
	for _, st := range body.Streams {
		for _, v := range st.Values {
			var s string
			if len(v) > 0 && json.Unmarshal(v[0], &s) == nil {
				if t, ok := lokiTime(s); ok {
					return t
				}
			}
		}
	}
	return time.Time{}
}
