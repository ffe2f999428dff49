package sqlite

import (
	"maps"
	"reflect"
	"testing"
	"time"
	"unsafe"

	"github.com/faultline/faultline/schema"
)

// roundTrip encodes and decodes r.
func roundTrip(t *testing.T, r schema.Record) schema.Record {
	t.Helper()
	ts, err := timeToNanos(r.Time)
	if err != nil {
		t.Fatal(err)
	}
	var got schema.Record
	if err := decodeRecord(string(encodeRecord(nil, &r, ts)), &got, nil); err != nil {
		t.Fatal(err)
	}
	return got
}

func TestRecordRoundTrip(t *testing.T) {
	for name, r := range map[string]schema.Record{
		"empty":       {},
		"nil attrs":   {Type: schema.TypeSpan, Status: schema.StatusError, SpanID: "00f067aa0ba902b7", Duration: -5},
		"empty attrs": {Attrs: map[string]string{}},
		"odd ids": {TraceID: "ABC", SpanID: "00F067AA0BA902B7", ParentSpanID: "abc", Name: "n", SeverityText: "ERROR",
			Template: "a <*>", Signature: "0123456789abcdef", Attrs: map[string]string{"": "", "ключ": "✓"}},
		"16-hex trace": {TraceID: "0123456789abcdef", Time: time.Unix(0, 1).UTC()},
		"full": {TraceID: "4bf92f3577b34da6a3ce929d0e0e4736", Time: time.Date(2262, 1, 1, 0, 0, 0, 999, time.UTC),
			Service: "svc ✓", Body: "body\x00with nul", Severity: -3, Duration: time.Duration(1<<62 + 12345)},
		"before 1970": {Time: time.Date(1700, 1, 1, 0, 0, 0, 1, time.UTC)},
	} {
		t.Run(name, func(t *testing.T) {
			if got := roundTrip(t, r); !reflect.DeepEqual(got, r) {
				t.Errorf("got %#v, want %#v", got, r)
			}
		})
	}
}

func TestTimeRange(t *testing.T) {
	for _, tm := range []time.Time{time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(1600, 1, 1, 0, 0, 0, 0, time.UTC)} {
		if _, err := timeToNanos(tm); err == nil {
			t.Errorf("time %s was accepted", tm)
		}
	}
}

func FuzzRecordCodec(f *testing.F) {
	f.Add(uint8(1), uint8(2), int64(5), "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", "x", "svc", "body", int32(17), "tmpl <*>", "k", "v")
	f.Add(uint8(0), uint8(0), int64(0), "", "", "", "", "", int32(0), "", "", "")
	f.Fuzz(func(t *testing.T, typ, status uint8, ns int64, trace, span, parent, svc, body string, sev int32, tmpl, k, v string) {
		r := schema.Record{Type: schema.RecordType(typ), Status: schema.SpanStatus(status), Time: time.Unix(0, ns).UTC(),
			TraceID: schema.TraceID(trace), SpanID: schema.SpanID(span), ParentSpanID: schema.SpanID(parent),
			Service: svc, Body: body, Severity: schema.Severity(sev), SeverityText: tmpl + k, Name: v,
			Duration: time.Duration(ns / 3), Template: tmpl, Signature: schema.Signature(k),
			Attrs: map[string]string{k: v, k + "2": v + v}}
		if ns == zeroTime {
			r.Time = time.Time{}
		}
		b := encodeRecord(nil, &r, ns)
		var got schema.Record
		if err := decodeRecord(string(b), &got, nil); err != nil {
			t.Fatalf("decoding what was encoded: %v", err)
		}
		if !maps.Equal(got.Attrs, r.Attrs) {
			t.Fatalf("attrs %v came back as %v", r.Attrs, got.Attrs)
		}
		got.Attrs, r.Attrs = nil, nil
		if !reflect.DeepEqual(got, r) {
			t.Fatalf("%#v came back as %#v", r, got)
		}
		// Every prefix and every corrupted byte decodes to an error or a
		// record, never a panic.
		for i := range b {
			_ = decodeRecord(string(b[:i]), &got, nil)
			c := []byte(string(b))
			c[i] ^= 0xa5
			_ = decodeRecord(string(c), &got, nil)
		}
	})
}

func FuzzDecodeRecord(f *testing.F) {
	r := schema.Record{TraceID: "4bf92f3577b34da6a3ce929d0e0e4736", SpanID: "00f067aa0ba902b7", Attrs: map[string]string{"a": "b"}}
	f.Add(encodeRecord(nil, &r, 1))
	f.Add([]byte{recV1, 0, 0, 2, 2, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, b []byte) {
		var got schema.Record
		if err := decodeRecord(string(b), &got, nil); err != nil {
			return
		}
		// What decodes re-encodes to something that decodes the same.
		ts, err := timeToNanos(got.Time)
		if err != nil {
			t.Fatalf("decoded an unstorable time: %v", err)
		}
		var again schema.Record
		if err := decodeRecord(string(encodeRecord(nil, &got, ts)), &again, nil); err != nil {
			t.Fatalf("re-encoding %#v: %v", got, err)
		}
		if !reflect.DeepEqual(again, got) {
			t.Fatalf("%#v re-encoded as %#v", got, again)
		}
	})
}

// TestSharedAttrsOwnTheirStrings: the attribute maps a read shares
// between records hold copies of their strings, not views of the block
// the first of them was decoded from, so that a map kept by the analysis
// does not keep that block, and every record of it, in memory.
func TestSharedAttrsOwnTheirStrings(t *testing.T) {
	keep := newAttrFilter([]string{"service.version"})
	r := schema.Record{Service: "api", Attrs: map[string]string{"service.version": "1.4.2", "pod": "api-7"}}
	blob := string(encodeRecord(nil, &r, 1))
	var got schema.Record
	if err := decodeRecord(blob, &got, keep); err != nil {
		t.Fatal(err)
	}
	v := got.Attrs["service.version"]
	if v != "1.4.2" || len(got.Attrs) != 1 {
		t.Fatalf("attrs %v, want only service.version 1.4.2", got.Attrs)
	}
	lo := uintptr(unsafe.Pointer(unsafe.StringData(blob)))
	if p := uintptr(unsafe.Pointer(unsafe.StringData(v))); p >= lo && p < lo+uintptr(len(blob)) {
		t.Fatalf("the shared map's value is a view of the decoded blob")
	}
	if p := uintptr(unsafe.Pointer(unsafe.StringData(got.Service))); p < lo || p >= lo+uintptr(len(blob)) {
		t.Fatalf("the record's own fields are no longer views of the blob: the decode copies them")
	}
}

// TestDecodedEmptyStringsViewNothing: a decoded record's empty fields and
// attribute values are "", not empty views of its encoding: an empty view
// points into the encoding all the same, and a record kept for its other
// fields' sake (the store rules hold thousands) kept the copy of its whole
// encoding, or its block, alive.
func TestDecodedEmptyStringsViewNothing(t *testing.T) {
	r := schema.Record{Type: schema.TypeLog, Time: time.Unix(0, 5).UTC(), TraceID: "4bf92f3577b34da6a3ce929d0e0e4736",
		Service: "api", Body: "failed", Attrs: map[string]string{"k": ""}}
	enc := string(encodeRecord(nil, &r, 5))
	var got schema.Record
	if err := decodeRecord(enc, &got, nil); err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]string{"span id": string(got.SpanID), "parent": string(got.ParentSpanID), "name": got.Name,
		"severity text": got.SeverityText, "template": got.Template, "signature": string(got.Signature), "attribute k": got.Attrs["k"]} {
		if s != "" || unsafe.StringData(s) != nil {
			t.Errorf("%s decoded as %q at %p, want \"\" viewing nothing", name, s, unsafe.StringData(s))
		}
	}
	if got.Service != "api" || got.Body != "failed" {
		t.Errorf("decoded %+v", got)
	}
}
