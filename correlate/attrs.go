package correlate

import "github.com/faultline/faultline/schema"

// AttrKeys are the record attributes the analysis reads. A store that is
// asked for just these (schema.WindowQuery.Attrs) can skip decoding the
// rest; a key read here and missing from the list would silently read as
// empty, which rootcause's projection test catches.
var AttrKeys = []string{
	schema.AttrPeerService, "remote.service", "peer", "server.address", "net.peer.name", "rpc.service", "db.name",
	"messaging.destination.name", "url.full", "http.url",
	schema.AttrHTTPStatus, "http.status_code", schema.AttrRPCGRPCStatus,
	schema.AttrExceptionType, "exception.message", "error.type",
	schema.AttrHost, schema.AttrPod,
	"span.kind", "otel.span.kind", "messaging.operation", "messaging.operation.type",
}
