package ingest

import (
	"fmt"
	"reflect"
	"testing"

	"go.opentelemetry.io/collector/pdata/plog"
	"google.golang.org/protobuf/encoding/protowire"
)

// pbKV is a KeyValue of a string value.
func pbKV(k, v string) []byte { return pbLen(1, pbStr(1, k), pbLen(2, pbStr(1, v))) }

// pbDeepKV is a KeyValue (field num of its message) whose value nests
// depth maps deep: past pdata's recursion limit at 40.
func pbDeepKV(num protowire.Number, depth int) []byte {
	kv := pbLen(1, pbStr(1, "leaf"), pbLen(2, pbStr(1, "x")))
	for range depth {
		kv = pbLen(1, pbStr(1, "a"), pbLen(2, pbLen(6, kv))) // KeyValue{a: AnyValue{kvlist: {kv}}}
	}
	_, _, n := protowire.ConsumeTag(kv)
	inner, _ := protowire.ConsumeBytes(kv[n:])
	return pbLen(num, inner)
}

// splitBody is a request of many resources, each of two scopes with a
// schema URL and a name, over otlpSplitMin and 2*parallelMinRecords
// records, with records pdata would refuse among them (a 3-byte trace id,
// a field of the wrong wire type, an attribute nested too deep, and for
// spans a bad link), a resource whose attributes nest too deep, and a
// field of the request pdata does not know.
func splitBody(spans bool) (body []byte, records int) {
	body = append(body, protowire.AppendVarint(protowire.AppendTag(nil, 9, protowire.VarintType), 7)...) // unknown to pdata
	for r := range 40 {
		res := pbLen(1, pbLen(1, pbStr(1, "service.name"), pbLen(2, pbStr(1, fmt.Sprintf("svc-%d", r%12)))))
		if r == 7 {
			res = pbLen(1, pbDeepKV(1, 40))
		}
		rl := [][]byte{res, pbStr(3, "https://opentelemetry.io/schemas/1.24.0")}
		for s := range 2 {
			sl := [][]byte{pbLen(1, pbStr(1, fmt.Sprintf("scope-%d", s)), pbStr(2, "1.0")), pbStr(3, "schema")}
			for i := range 130 {
				n := records
				records++
				msg := fmt.Sprintf("record %d of resource %d: request took %dms for user %d", n, r, n%977, n*31)
				var extra [][]byte
				badTrace := n%97 == 13
				switch {
				case badTrace && !spans:
					extra = append(extra, pbLen(9, []byte{1, 2, 3}))
				case n%89 == 5:
					extra = append(extra, protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), 5))
				case n%1009 == 100:
					extra = append(extra, pbDeepKV(6, 40))
					if spans {
						extra = [][]byte{pbDeepKV(9, 40)}
					}
				case spans && n%53 == 3:
					extra = append(extra, pbLen(13, pbLen(1, []byte{1, 2, 3})))
				}
				if spans {
					tr := append([]byte{}, pbTrace[:]...)
					tr[0], tr[1] = byte(n), byte(n>>8)
					if badTrace {
						tr = tr[:3]
					}
					base := [][]byte{pbLen(1, tr), pbLen(2, pbSpan[:]), pbStr(5, msg), pbFixed(7, pbTime+uint64(n)), pbFixed(8, pbTime+uint64(n)+1000)}
					sl = append(sl, pbLen(2, append(base, extra...)...))
				} else {
					sl = append(sl, pbLen(2, append([][]byte{pbFixed(1, pbTime+uint64(n)), pbLen(5, pbStr(1, msg)), pbLen(10, pbSpan[:]),
						pbLen(6, pbStr(1, "i"), pbLen(2, pbStr(1, fmt.Sprint(i))))}, extra...)...))
				}
			}
			rl = append(rl, pbLen(2, sl...))
		}
		body = append(body, pbLen(1, rl...)...)
	}
	return body, records
}

// TestSplitOTLPDecodesAsWhole: a large OTLP/protobuf body decoded in parts
// on every core gives the records, in the order, and the stats of the
// whole body decoded on one, bad records, bad resources and all.
func TestSplitOTLPDecodesAsWhole(t *testing.T) {
	dc := NewDecoder(DecoderConfig{})
	for _, spans := range []bool{false, true} {
		body, n := splitBody(spans)
		parts := splitOTLP(body, 4)
		if len(parts) < 2 {
			t.Fatalf("spans=%v: a %d-byte body of %d records is not split", spans, len(body), n)
		}
		sum := 0
		for _, p := range parts {
			sum += p.records
		}
		if sum != n {
			t.Errorf("spans=%v: the parts hold %d records, the body %d", spans, sum, n)
		}
		seq, par := NewBatch(Limits{}), NewBatch(Limits{})
		var split bool
		if spans {
			if err := dc.OTLPTracesProto(body, seqSink{seq}); err != nil {
				t.Fatalf("spans: whole: %v", err)
			}
			split = otlpInParts(body, true, par, unmarshalTraces, dc.otlpTraces)
		} else {
			if err := dc.OTLPLogsProto(body, seqSink{seq}); err != nil {
				t.Fatalf("logs: whole: %v", err)
			}
			split = otlpInParts(body, false, par, unmarshalLogs, func(ld plog.Logs, bad map[int]Reason, part RecordSink) {
				dc.otlpLogs(ld, bad, part, false)
			})
		}
		if !split {
			t.Fatalf("spans=%v: the parts were not decoded (one was refused)", spans)
		}
		if seq.Stats.Rejected < 100 || seq.Len() < n/2 {
			t.Fatalf("spans=%v: the whole body kept %d and rejected %d of %d: not the mix meant", spans, seq.Len(), seq.Stats.Rejected, n)
		}
		if !reflect.DeepEqual(par.Stats, seq.Stats) {
			t.Errorf("spans=%v: stats in parts %+v, whole %+v", spans, par.Stats, seq.Stats)
		}
		if par.Len() != seq.Len() {
			t.Fatalf("spans=%v: %d records in parts, %d whole", spans, par.Len(), seq.Len())
		}
		for i := range seq.Records {
			if !reflect.DeepEqual(par.Records[i], seq.Records[i]) {
				t.Fatalf("spans=%v: record %d: in parts %v, whole %v", spans, i, par.Records[i], seq.Records[i])
			}
		}
	}
}

// TestSplitOTLPLeavesBrokenBodies: a large body that is not protobuf
// above its records is not split, and is refused whole with pdata's
// error, as it is on one core.
func TestSplitOTLPLeavesBrokenBodies(t *testing.T) {
	dc := NewDecoder(DecoderConfig{})
	good, _ := splitBody(false)
	wrongType := append(append([]byte{}, good...), protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), 1)...)
	legacy := append(append([]byte{}, good...), pbLen(1, pbLen(1000, pbLen(2, pbLog("old"))))...)
	for name, body := range map[string][]byte{
		"cut short":                 good[:len(good)-3],
		"a resource list of varint": wrongType,
		"the legacy layout":         legacy,
	} {
		if parts := splitOTLP(body, 4); parts != nil {
			t.Errorf("%s: split in %d parts", name, len(parts))
		}
		errSeq := dc.OTLPLogsProto(body, seqSink{NewBatch(Limits{})})
		b := NewBatch(Limits{})
		errPar := dc.OTLPLogsProto(body, b)
		if fmt.Sprint(errSeq) != fmt.Sprint(errPar) || errSeq == nil && name != "the legacy layout" || b.Len() != 0 && errPar != nil {
			t.Errorf("%s: error in parts %v, whole %v", name, errPar, errSeq)
		}
	}
}

// FuzzSplitOTLP: whatever the body, when its parts are decoded (none
// refused), they give what the whole body gives on one core.
func FuzzSplitOTLP(f *testing.F) {
	f.Add(pbLogs(pbLog("a"), pbLog("b"), pbLog("c", pbLen(9, []byte{1, 2, 3}))), false)
	f.Add(append(pbLogs(pbLog("a"), pbLog("b")), pbLogs(pbLog("c"), pbLog("d", pbDeepKV(6, 40)))...), false)
	f.Add(pbTraces(pbSpanRec("a"), pbSpanRec("b", pbLen(13, pbLen(1, []byte{1, 2, 3}))), pbSpanRec("c")), true)
	f.Add(deepLogs(), false)
	dc := NewDecoder(DecoderConfig{})
	f.Fuzz(func(t *testing.T, body []byte, spans bool) {
		parts := splitOTLPAt(body, 3, 0, 1)
		if parts == nil {
			return
		}
		seq, par := NewBatch(Limits{}), NewBatch(Limits{})
		var errWhole error
		var split bool
		if spans {
			errWhole = dc.OTLPTracesProto(body, seqSink{seq})
			split = decodeParts(par, parts, true, unmarshalTraces, dc.otlpTraces)
		} else {
			errWhole = dc.OTLPLogsProto(body, seqSink{seq})
			split = decodeParts(par, parts, false, unmarshalLogs, func(ld plog.Logs, bad map[int]Reason, part RecordSink) {
				dc.otlpLogs(ld, bad, part, false)
			})
		}
		if !split {
			return // refused in parts: the body is decoded whole instead
		}
		if errWhole != nil {
			t.Fatalf("decoded in parts, refused whole: %v", errWhole)
		}
		if !reflect.DeepEqual(par.Stats, seq.Stats) || len(par.Records) != len(seq.Records) ||
			len(seq.Records) > 0 && !reflect.DeepEqual(par.Records, seq.Records) {
			t.Fatalf("in parts %+v %v, whole %+v %v", par.Stats, par.Records, seq.Stats, seq.Records)
		}
	})
}
