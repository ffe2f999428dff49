package ingest

import (
	"encoding/hex"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// detectAttrs routes OTLP attributes through the alias table; map values
// are flattened to dotted keys.
func (dc *Decoder) detectAttrs(m pcommon.Map, d *detected) {
	for k, v := range m.All() {
		if v.Type() == pcommon.ValueTypeMap {
			flattenInto(d, k, v.Map().AsRaw(), dc.lim.MaxDepth)
			continue
		}
		d.set(k, v.AsString())
	}
}

// plainAttrs copies OTLP attributes into attrs under their semantic keys;
// service.name is returned instead of copied.
func plainAttrs(m pcommon.Map, attrs map[string]string) (service string) {
	for k, v := range m.All() {
		if k == "service.name" {
			service = v.AsString()
			continue
		}
		attrs[attrKeyOf(k)] = v.AsString()
	}
	return service
}

func traceHex(id pcommon.TraceID) string {
	if id.IsEmpty() {
		return ""
	}
	return hex.EncodeToString(id[:])
}

func spanHex(id pcommon.SpanID) string {
	if id.IsEmpty() {
		return ""
	}
	return hex.EncodeToString(id[:])
}
