package ingest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

// decodeLoki reads a Loki push: protobuf + snappy (the default, as Loki
// treats a missing Content-Type) or JSON.
func (s *Server) decodeLoki(r *http.Request, body []byte, b *Batch) (string, error) {
	switch mt := mediaType(r); {
	case mt == "application/json":
		return "loki-json", s.dec.LokiJSON(body, b)
	case mt == "application/x-protobuf" || mt == "" || mt == "application/octet-stream":
		raw, err := unsnappy(body, s.dec.Limits().MaxBodyBytes)
		if err != nil {
			return "loki-protobuf", err
		}
		return "loki-protobuf", s.dec.LokiProto(raw, b)
	default:
		return "loki", fmt.Errorf("cannot read Loki push of type %q: %w", truncate(mt, 60), ErrUnsupportedType)
	}
}

func (s *Server) decodeJSONL(_ *http.Request, body []byte, b *Batch) (string, error) {
	s.dec.JSONLines(body, b)
	return "jsonl", nil
}

// isJSON tells an OTLP/JSON request from OTLP/protobuf by Content-Type.
func isJSON(r *http.Request) (bool, error) {
	switch mt := mediaType(r); mt {
	case "application/json":
		return true, nil
	case "application/x-protobuf", "application/protobuf", "":
		return false, nil
	default:
		return false, fmt.Errorf("cannot read OTLP of type %q: %w", truncate(mt, 60), ErrUnsupportedType)
	}
}

func (s *Server) decodeOTLPLogs(r *http.Request, body []byte, b *Batch) (string, error) {
	j, err := isJSON(r)
	switch {
	case err != nil:
		return "otlp-logs", err
	case j:
		return "otlp-logs-json", s.dec.OTLPLogsJSON(body, b)
	}
	return "otlp-logs-protobuf", s.dec.OTLPLogsProto(body, b)
}

func (s *Server) decodeOTLPTraces(r *http.Request, body []byte, b *Batch) (string, error) {
	j, err := isJSON(r)
	switch {
	case err != nil:
		return "otlp-traces", err
	case j:
		return "otlp-traces-json", s.dec.OTLPTracesJSON(body, b)
	}
	return "otlp-traces-protobuf", s.dec.OTLPTracesProto(body, b)
}

// pushReply is the JSON answer of the Loki and JSON lines endpoints.
type pushReply struct {
	Stats
	Error string `json:"error,omitempty"`
}

func (s *Server) replyStats(w http.ResponseWriter, _ *http.Request, status int, st Stats, err error) {
	rep := pushReply{Stats: st}
	if err != nil {
		rep.Error = publicError(err)
		if status >= 500 || status == http.StatusTooManyRequests {
			rep.Stats = Stats{} // nothing was stored
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(rep)
}

// publicError is the message a client sees: the error's text, which never
// holds internals beyond what the client sent.
func publicError(err error) string {
	s := err.Error()
	if statusOf(err) >= 500 {
		return "the store cannot take the batch right now; retry later"
	}
	return truncate(s, 300)
}

// rejectSummary is the partial-success message: "bad_json: 2, bad_trace_id: 1".
func rejectSummary(st Stats) string {
	parts := make([]string, 0, len(st.Rejects))
	for _, r := range st.Reasons() {
		parts = append(parts, fmt.Sprintf("%s: %d", r, st.Rejects[r]))
	}
	return strings.Join(parts, ", ")
}

func (s *Server) replyOTLPLogs(w http.ResponseWriter, r *http.Request, status int, st Stats, err error) {
	if err != nil {
		s.replyOTLPError(w, status, err)
		return
	}
	resp := plogotlp.NewExportResponse()
	if st.Rejected > 0 {
		resp.PartialSuccess().SetRejectedLogRecords(int64(st.Rejected))
		resp.PartialSuccess().SetErrorMessage(rejectSummary(st))
	}
	j, _ := isJSON(r)
	var out []byte
	if j {
		out, err = resp.MarshalJSON()
	} else {
		out, err = resp.MarshalProto()
	}
	writeOTLP(w, j, out, err)
}

func (s *Server) replyOTLPTraces(w http.ResponseWriter, r *http.Request, status int, st Stats, err error) {
	if err != nil {
		s.replyOTLPError(w, status, err)
		return
	}
	resp := ptraceotlp.NewExportResponse()
	if st.Rejected > 0 {
		resp.PartialSuccess().SetRejectedSpans(int64(st.Rejected))
		resp.PartialSuccess().SetErrorMessage(rejectSummary(st))
	}
	j, _ := isJSON(r)
	var out []byte
	if j {
		out, err = resp.MarshalJSON()
	} else {
		out, err = resp.MarshalProto()
	}
	writeOTLP(w, j, out, err)
}

func writeOTLP(w http.ResponseWriter, j bool, out []byte, err error) {
	if err != nil {
		http.Error(w, "cannot encode response", http.StatusInternalServerError)
		return
	}
	if j {
		w.Header().Set("Content-Type", "application/json")
	} else {
		w.Header().Set("Content-Type", "application/x-protobuf")
	}
	w.Write(out)
}

// replyOTLPError answers a failed OTLP request with a JSON error (the
// status code carries what OTLP clients act on: 400, 413, 429, 503).
func (s *Server) replyOTLPError(w http.ResponseWriter, status int, err error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": publicError(err)})
}
