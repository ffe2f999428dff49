package ingest

import (
	"google.golang.org/protobuf/encoding/protowire"
)

// pdata's protobuf unmarshalling fails a whole OTLP body on one record
// whose trace or span id has the wrong length, whose attributes nest
// deeper than its recursion limit, or whose known fields have the wrong
// wire type. When it does (parseOTLP), scrubOTLPProto finds such records,
// empties them (an empty message in their place keeps the ordinals of the
// others) and names them by ordinal, so that only they are rejected, as
// scrubOTLPIDs does for OTLP/JSON. A bad id of a span link, or a link
// nested too deep, empties the link and keeps the span. A resource or
// scope that pdata would refuse is emptied with all its records rejected.
//
// A body that is not valid protobuf at the levels above the records is
// returned unchanged, for pdata to refuse with its error; one without a
// bad record is returned unchanged after a walk that allocates nothing.

// pdataDepthLimit is where pdata stops (proto.RecursionLimit is 100, and
// KeyValue, AnyValue, KeyValueList and ArrayValue each count one level);
// the scrubber counts alike (FuzzScrubOTLPProto checks it agrees).
const pdataDepthLimit = 100

// Field numbers of the OTLP messages the scrubber walks.
const (
	fResourceList  = 1    // Export*ServiceRequest.resource_logs / resource_spans
	fResource      = 1    // Resource{Logs,Spans}.resource
	fScopeList     = 2    // Resource{Logs,Spans}.scope_logs / scope_spans
	fScopeListOld  = 1000 // deprecated instrumentation_library_*
	fScope         = 1    // Scope{Logs,Spans}.scope
	fRecords       = 2    // Scope{Logs,Spans}.log_records / spans
	fResourceAttrs = 1    // Resource.attributes
	fScopeAttrs    = 3    // InstrumentationScope.attributes
)

// recordSchema names, for one record type, the fields the scrubber checks.
type recordSchema struct {
	ids    map[protowire.Number]idField
	kvs    map[protowire.Number]bool           // repeated KeyValue fields
	anys   map[protowire.Number]bool           // AnyValue fields
	events protowire.Number                    // Span.events; 0 none
	links  protowire.Number                    // Span.links; 0 none
	status protowire.Number                    // Span.status; 0 none
	types  map[protowire.Number]protowire.Type // the wire type of every other known field
}

type idField struct {
	size   int
	reason Reason
}

func logSchema() *recordSchema {
	return &recordSchema{
		ids:  map[protowire.Number]idField{9: {16, ReasonBadTraceID}, 10: {8, ReasonBadSpanID}},
		kvs:  map[protowire.Number]bool{6: true},
		anys: map[protowire.Number]bool{5: true},
		types: map[protowire.Number]protowire.Type{1: protowire.Fixed64Type, 11: protowire.Fixed64Type,
			2: protowire.VarintType, 3: protowire.BytesType, 7: protowire.VarintType, 8: protowire.Fixed32Type, 12: protowire.BytesType},
	}
}

func spanSchema() *recordSchema {
	return &recordSchema{
		ids:    map[protowire.Number]idField{1: {16, ReasonBadTraceID}, 2: {8, ReasonBadSpanID}, 4: {8, ReasonBadSpanID}},
		kvs:    map[protowire.Number]bool{9: true},
		events: 11, links: 13, status: 15,
		types: map[protowire.Number]protowire.Type{3: protowire.BytesType, 5: protowire.BytesType, 6: protowire.VarintType,
			7: protowire.Fixed64Type, 8: protowire.Fixed64Type, 10: protowire.VarintType, 12: protowire.VarintType,
			14: protowire.VarintType, 16: protowire.Fixed32Type},
	}
}

// protoScrub is one walk of a body.
type protoScrub struct {
	rs    *recordSchema
	ord   int // ordinal of the next record
	bad   map[int]Reason
	dirty bool // something must be emptied
}

// parseOTLP unmarshals an OTLP/protobuf body with pdata; only when pdata
// refuses it are the records it refuses it for emptied (scrubOTLPProto)
// and the body read again. A body pdata reads is never scrubbed
// (FuzzScrubOTLPProto checks it), so the walk is spent only on bodies that
// need it. data is the body read last, for an error's message.
func parseOTLP[T any](body []byte, spans bool, unmarshal func([]byte) (T, error)) (req T, bad map[int]Reason, data []byte, err error) {
	if req, err = unmarshal(body); err == nil {
		return req, nil, body, nil
	}
	data, bad = scrubOTLPProto(body, spans)
	req, err = unmarshal(data)
	return req, bad, data, err
}

// scrubOTLPProto returns body with the records pdata would refuse emptied
// and, by ordinal, why each must be rejected; spans chooses the trace
// request over the logs request.
func scrubOTLPProto(body []byte, spans bool) ([]byte, map[int]Reason) {
	p := &protoScrub{rs: logSchema()}
	if spans {
		p.rs = spanSchema()
	}
	if !p.request(body, nil) || !p.dirty {
		return body, nil
	}
	bad := p.bad
	p.ord, p.bad = 0, nil
	out := make([]byte, 0, len(body))
	if !p.request(body, &out) {
		return body, nil
	}
	return out, bad
}

// pfield is one field of a message: its number, wire type, the value bytes
// (for a length-delimited field, its contents) and the whole field's bytes.
type pfield struct {
	num  protowire.Number
	typ  protowire.Type
	val  []byte
	full []byte
}

// fields calls fn for every field of b; false when b is not protobuf or fn
// returns false.
func fields(b []byte, fn func(f pfield) bool) bool {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return false
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return false
		}
		f := pfield{num: num, typ: typ, full: b[:n+m]}
		if typ == protowire.BytesType {
			f.val, _ = protowire.ConsumeBytes(b[n:])
		}
		if !fn(f) {
			return false
		}
		b = b[n+m:]
	}
	return true
}

// emit appends f to out (nil: checking only), with val in place of its
// contents when val is not nil.
func emit(out *[]byte, f pfield, val []byte) {
	if out == nil {
		return
	}
	if val == nil {
		*out = append(*out, f.full...)
		return
	}
	*out = protowire.AppendTag(*out, f.num, protowire.BytesType)
	*out = protowire.AppendBytes(*out, val)
}

// nested rewrites the message in f.val with fn into out (or only checks).
func nested(out *[]byte, f pfield, fn func(b []byte, out *[]byte) bool) bool {
	if out == nil {
		return fn(f.val, nil)
	}
	var sub []byte
	if !fn(f.val, &sub) {
		return false
	}
	if sub == nil {
		sub = []byte{}
	}
	emit(out, f, sub)
	return true
}

func (p *protoScrub) request(b []byte, out *[]byte) bool {
	return fields(b, func(f pfield) bool {
		if f.num == fResourceList {
			return f.typ == protowire.BytesType && nested(out, f, p.resource)
		}
		emit(out, f, nil)
		return true
	})
}

// Wire types of the known fields above the records: one of the wrong
// type there is left to pdata to refuse.
var (
	listTypes     = map[protowire.Number]protowire.Type{1: protowire.BytesType, 2: protowire.BytesType, 3: protowire.BytesType}
	resourceTypes = map[protowire.Number]protowire.Type{2: protowire.VarintType, 3: protowire.BytesType}
	scopeTypes    = map[protowire.Number]protowire.Type{1: protowire.BytesType, 2: protowire.BytesType, 4: protowire.VarintType}
)

// wellTyped reports whether the known fields of b have their wire types.
func wellTyped(b []byte, types map[protowire.Number]protowire.Type) bool {
	return fields(b, func(f pfield) bool {
		t, ok := types[f.num]
		return !ok || f.typ == t
	})
}

func (p *protoScrub) resource(b []byte, out *[]byte) bool {
	if !wellTyped(b, listTypes) || !partTyped(b, fResource, resourceTypes) {
		return false
	}
	resBad := !partOK(b, fResource, fResourceAttrs)
	p.dirty = p.dirty || resBad
	ok := fields(b, func(f pfield) bool {
		switch {
		case f.num == fResource && f.typ == protowire.BytesType:
			if resBad {
				emit(out, f, []byte{})
				return true
			}
		case f.num == fScopeList && f.typ == protowire.BytesType:
			return nested(out, f, func(b []byte, out *[]byte) bool { return p.scope(b, out, resBad) })
		case f.num == fScopeListOld:
			return false // the legacy layout: left to pdata
		}
		emit(out, f, nil)
		return true
	})
	return ok
}

// scope walks one Scope{Logs,Spans}; all its records are rejected when
// reject is set (their resource was bad) or its scope is.
func (p *protoScrub) scope(b []byte, out *[]byte, reject bool) bool {
	if !wellTyped(b, listTypes) || !partTyped(b, fScope, scopeTypes) {
		return false
	}
	scopeBad := !partOK(b, fScope, fScopeAttrs)
	p.dirty = p.dirty || scopeBad
	reject = reject || scopeBad
	return fields(b, func(f pfield) bool {
		switch {
		case f.num == fScope && f.typ == protowire.BytesType:
			if scopeBad {
				emit(out, f, []byte{})
				return true
			}
		case f.num == fRecords && f.typ == protowire.BytesType:
			return p.record(f, out, reject)
		}
		emit(out, f, nil)
		return true
	})
}

// record checks one record; a bad one is replaced by an empty message.
func (p *protoScrub) record(f pfield, out *[]byte, reject bool) bool {
	ord := p.ord
	p.ord++
	var fixed []byte
	reason := ReasonBadProto
	if !reject {
		reason, fixed = p.checkRecord(f.val, out != nil)
	}
	if reason == "" {
		emit(out, f, fixed)
		return true
	}
	p.dirty = true
	if p.bad == nil {
		p.bad = map[int]Reason{}
	}
	p.bad[ord] = reason
	emit(out, f, []byte{})
	return true
}

// checkRecord is why a record must be rejected ("" when it is fine) and,
// when a link of it had to be emptied and rewrite is set, the record's
// new bytes (nil: unchanged).
func (p *protoScrub) checkRecord(b []byte, rewrite bool) (Reason, []byte) {
	var reason Reason
	linksBad := false
	ok := fields(b, func(f pfield) bool {
		if id, isID := p.rs.ids[f.num]; isID {
			if f.typ != protowire.BytesType {
				reason = ReasonBadProto
				return false
			}
			if len(f.val) != 0 && len(f.val) != id.size {
				reason = id.reason
				return false
			}
			return true
		}
		if t, known := p.rs.types[f.num]; known {
			return f.typ == t
		}
		switch {
		case p.rs.kvs[f.num]:
			if f.typ != protowire.BytesType || !keyValueOK(f.val, 0) {
				return false
			}
		case p.rs.anys[f.num]:
			if f.typ != protowire.BytesType || !anyValueOK(f.val, 0) {
				return false
			}
		case f.num == p.rs.events && p.rs.events != 0:
			if f.typ != protowire.BytesType || !messageOK(f.val, eventTypes(), 3) {
				return false
			}
		case f.num == p.rs.status && p.rs.status != 0:
			if f.typ != protowire.BytesType || !messageOK(f.val, statusTypes(), 0) {
				return false
			}
		case f.num == p.rs.links && p.rs.links != 0:
			if f.typ != protowire.BytesType {
				return false
			}
			if !linkOK(f.val) {
				linksBad = true
			}
		}
		return true
	})
	switch {
	case reason != "":
		return reason, nil
	case !ok:
		return ReasonBadProto, nil
	case !linksBad:
		return "", nil
	case !rewrite:
		p.dirty = true
		return "", nil
	}
	var out []byte
	fields(b, func(f pfield) bool {
		if f.num == p.rs.links && !linkOK(f.val) {
			emit(&out, f, []byte{})
			return true
		}
		emit(&out, f, nil)
		return true
	})
	return "", out
}

// linkOK reports whether a span link is one pdata reads: ids of the right
// length, fields of the right types, attributes not too deep.
func linkOK(b []byte) bool {
	return fields(b, func(f pfield) bool {
		switch f.num {
		case 1:
			return f.typ == protowire.BytesType && (len(f.val) == 0 || len(f.val) == 16)
		case 2:
			return f.typ == protowire.BytesType && (len(f.val) == 0 || len(f.val) == 8)
		case 3:
			return f.typ == protowire.BytesType
		case 4:
			return f.typ == protowire.BytesType && keyValueOK(f.val, 0)
		case 5:
			return f.typ == protowire.VarintType
		case 6:
			return f.typ == protowire.Fixed32Type
		}
		return true
	})
}

// eventTypes and statusTypes are the wire types of Span.Event's and
// Span.Status's fields.
func eventTypes() map[protowire.Number]protowire.Type {
	return map[protowire.Number]protowire.Type{1: protowire.Fixed64Type, 2: protowire.BytesType, 4: protowire.VarintType}
}

func statusTypes() map[protowire.Number]protowire.Type {
	return map[protowire.Number]protowire.Type{2: protowire.BytesType, 3: protowire.VarintType}
}

// messageOK checks the fields of a small message against their wire types
// and its repeated KeyValue field kvs (0: none).
func messageOK(b []byte, types map[protowire.Number]protowire.Type, kvs protowire.Number) bool {
	return fields(b, func(f pfield) bool {
		if kvs != 0 && f.num == kvs {
			return f.typ == protowire.BytesType && keyValueOK(f.val, 0)
		}
		if t, ok := types[f.num]; ok {
			return f.typ == t
		}
		return true
	})
}

// partOK reports whether the resource or scope message (field part of b)
// has attributes (field attrs of it) that pdata reads.
func partOK(b []byte, part, attrs protowire.Number) bool {
	return fields(b, func(f pfield) bool {
		if f.num == part && f.typ == protowire.BytesType {
			return attrsOK(f.val, attrs)
		}
		return true
	})
}

// partTyped reports whether the resource or scope message (field part of
// b) has its known fields of their wire types.
func partTyped(b []byte, part protowire.Number, types map[protowire.Number]protowire.Type) bool {
	return fields(b, func(f pfield) bool {
		return f.num != part || wellTyped(f.val, types)
	})
}

// attrsOK checks the repeated KeyValue field num of a message.
func attrsOK(b []byte, num protowire.Number) bool {
	return fields(b, func(f pfield) bool {
		if f.num == num {
			return f.typ == protowire.BytesType && keyValueOK(f.val, 0)
		}
		return true
	})
}

// keyValueOK, anyValueOK and listOK check an attribute tree as pdata
// reads it, counting the depth as it does.
func keyValueOK(b []byte, depth int) bool {
	if depth >= pdataDepthLimit {
		return false
	}
	return fields(b, func(f pfield) bool {
		switch f.num {
		case 1:
			return f.typ == protowire.BytesType
		case 2:
			return f.typ == protowire.BytesType && anyValueOK(f.val, depth+1)
		}
		return true
	})
}

func anyValueOK(b []byte, depth int) bool {
	if depth >= pdataDepthLimit {
		return false
	}
	return fields(b, func(f pfield) bool {
		switch f.num {
		case 1, 7:
			return f.typ == protowire.BytesType
		case 2, 3:
			return f.typ == protowire.VarintType
		case 4:
			return f.typ == protowire.Fixed64Type
		case 5:
			return f.typ == protowire.BytesType && listOK(f.val, depth+1, anyValueOK)
		case 6:
			return f.typ == protowire.BytesType && listOK(f.val, depth+1, keyValueOK)
		}
		return true
	})
}

// listOK checks an ArrayValue or KeyValueList: repeated field 1 of elem.
func listOK(b []byte, depth int, elem func([]byte, int) bool) bool {
	if depth >= pdataDepthLimit {
		return false
	}
	return fields(b, func(f pfield) bool {
		if f.num == 1 {
			return f.typ == protowire.BytesType && elem(f.val, depth+1)
		}
		return true
	})
}
