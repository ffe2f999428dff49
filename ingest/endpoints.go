package ingest

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/protobuf/proto"

	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

// requestFormat names the format of a request from its path and
// Content-Type alone, before its body is read: what the metrics and the
// log count a request under even when it is refused before decoding (a
// 429 while the write slots are full), and the names the decoders give.
func requestFormat(r *http.Request) string {
	mt := mediaType(r)
	switch r.URL.Path {
	case "/loki/api/v1/push":
		switch mt {
		case "application/json":
			return "loki-json"
		case "application/x-protobuf", "", "application/octet-stream":
			return "loki-protobuf"
		}
		return "loki"
	case "/ingest/jsonl":
		return "jsonl"
	case "/v1/logs", "/v1/traces":
		f := "otlp-logs"
		if r.URL.Path == "/v1/traces" {
			f = "otlp-traces"
		}
		switch mt {
		case "application/json":
			return f + "-json"
		case "application/x-protobuf", "application/protobuf", "":
			return f + "-protobuf"
		}
		return f
	}
	return "unknown"
}

// decodeLoki reads a Loki push: protobuf + snappy (the default, as Loki
// treats a missing Content-Type) or JSON.
func (s *Server) decodeLoki(r *http.Request, body []byte, l *lease, b *Batch) (string, error) {
	switch f := requestFormat(r); f {
	case "loki-json":
		return f, s.dec.LokiJSON(body, b)
	case "loki-protobuf":
		raw, err := unsnappy(body, s.dec.Limits().MaxBodyBytes, l)
		if err != nil {
			return f, err
		}
		return f, s.dec.LokiProto(raw, b)
	default:
		return f, badInput(ErrUnsupportedType, nil, "Content-Type %q is not a Loki push; send application/x-protobuf (snappy) or application/json", truncate(mediaType(r), 60))
	}
}

func (s *Server) decodeJSONL(_ *http.Request, body []byte, _ *lease, b *Batch) (string, error) {
	decodeLinesParallel(trimBOM(body), b, s.dec.JSONLine)
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
		return false, badInput(ErrUnsupportedType, nil, "Content-Type %q is not OTLP/HTTP; send application/x-protobuf or application/json", truncate(mt, 60))
	}
}

func (s *Server) decodeOTLPLogs(r *http.Request, body []byte, _ *lease, b *Batch) (string, error) {
	j, err := isJSON(r)
	switch {
	case err != nil:
		return "otlp-logs", err
	case j:
		return "otlp-logs-json", s.dec.OTLPLogsJSON(body, b)
	}
	return "otlp-logs-protobuf", s.dec.OTLPLogsProto(body, b)
}

func (s *Server) decodeOTLPTraces(r *http.Request, body []byte, _ *lease, b *Batch) (string, error) {
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

// publicError is the message a client sees: one plain sentence, never a
// parser's or the store's internals (those go to the server log).
func publicError(err error) string {
	var ie *inputError
	switch code := statusOf(err); {
	case errors.As(err, &ie):
		return truncate(ie.msg, 300)
	case errors.Is(err, ErrStoreBroken):
		return "the store is damaged and cannot take writes until it is repaired; the server log says how to recover"
	case errors.Is(err, ErrStoreNoSpace):
		return "the disk holding the store is full; retry later"
	case errors.Is(err, ErrStoreFull):
		return "the store's write spool is full; retry later"
	case errors.Is(err, ErrStoreUnavailable):
		return "the store is unavailable; retry later"
	case errors.Is(err, errBytesBusy):
		return "too much data is being received right now; retry later"
	case code == http.StatusTooManyRequests:
		return "too many writes in flight; retry later"
	case code == http.StatusInternalServerError:
		return "internal error; the server log has the details"
	case code >= 500:
		return "the store cannot take the batch right now; retry later"
	}
	return truncate(err.Error(), 300)
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
		s.replyOTLPError(w, r, status, err)
		return
	}
	resp := plogotlp.NewExportResponse()
	if st.Rejected > 0 {
		resp.PartialSuccess().SetRejectedLogRecords(int64(st.Rejected))
		resp.PartialSuccess().SetErrorMessage(rejectSummary(st))
	}
	replyOTLP(w, r, resp)
}

func (s *Server) replyOTLPTraces(w http.ResponseWriter, r *http.Request, status int, st Stats, err error) {
	if err != nil {
		s.replyOTLPError(w, r, status, err)
		return
	}
	resp := ptraceotlp.NewExportResponse()
	if st.Rejected > 0 {
		resp.PartialSuccess().SetRejectedSpans(int64(st.Rejected))
		resp.PartialSuccess().SetErrorMessage(rejectSummary(st))
	}
	replyOTLP(w, r, resp)
}

// otlpResponse is an OTLP ExportResponse of either signal.
type otlpResponse interface {
	MarshalJSON() ([]byte, error)
	MarshalProto() ([]byte, error)
}

// replyOTLP answers in the request's encoding.
func replyOTLP(w http.ResponseWriter, r *http.Request, resp otlpResponse) {
	j, _ := isJSON(r)
	var out []byte
	var err error
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

// replyOTLPError answers a failed OTLP request with a google.rpc.Status in
// the request's encoding, as OTLP/HTTP asks: protobuf for a protobuf
// request, JSON otherwise (also for an unsupported Content-Type). The
// status code carries what clients act on: 400, 413, 415, 429, 503.
func (s *Server) replyOTLPError(w http.ResponseWriter, r *http.Request, status int, err error) {
	st := &spb.Status{Code: int32(rpcCodeOf(status)), Message: publicError(err)}
	if j, e := isJSON(r); j || e != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(map[string]any{"code": st.Code, "message": st.Message})
		return
	}
	out, merr := proto.Marshal(st)
	if merr != nil {
		http.Error(w, st.Message, status)
		return
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.WriteHeader(status)
	w.Write(out)
}

// gRPC status codes of google.rpc.Status answers.
const (
	rpcInvalidArgument   = 3
	rpcDeadlineExceeded  = 4
	rpcResourceExhausted = 8
	rpcInternal          = 13
	rpcUnavailable       = 14
	rpcUnauthenticated   = 16
)

// rpcCodeOf is the gRPC code of an HTTP status, per the usual mapping.
func rpcCodeOf(status int) int {
	switch status {
	case http.StatusBadRequest, http.StatusUnsupportedMediaType:
		return rpcInvalidArgument
	case http.StatusRequestEntityTooLarge, http.StatusTooManyRequests:
		return rpcResourceExhausted
	case http.StatusServiceUnavailable:
		return rpcUnavailable
	case http.StatusUnauthorized:
		return rpcUnauthenticated
	case http.StatusRequestTimeout:
		return rpcDeadlineExceeded
	}
	return rpcInternal
}
