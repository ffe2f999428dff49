package ingest

import (
	"testing"
	"time"
)

// TestJSONLinesExponentTimes: a numeric time in any JSON number form is a
// unix time by magnitude, as integers are; one no store can hold is
// bad_timestamp. Exponent forms used to be unreadable, and the record took
// the time of ingest.
func TestJSONLinesExponentTimes(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	dc := NewDecoder(DecoderConfig{Now: func() time.Time { return now }})
	for _, c := range []struct {
		ts   string
		want time.Time // zero: bad_timestamp
	}{
		{"1.796136e9", time.Unix(1796136000, 0)},
		{"1.796136E+9", time.Unix(1796136000, 0)},
		{"1796136000.5", time.Unix(1796136000, 5e8)},
		{"1.7961360005e12", time.Unix(1796136000, 5e8)},           // ms
		{"1.796136000123456e15", time.Unix(1796136000, 123456e3)}, // µs
		{"1.796136000123456789e18", time.Unix(1796136000, 123456789)},
		{"17961360000e-1", time.Unix(1796136000, 0)},
		{"1e16", time.Time{}}, // µs: year 2286
		{"1e18", time.Unix(1e9, 0)},
		{"1e30", time.Time{}},
		{"99999999999999999999", time.Time{}},
		{"18446744073709551616", time.Time{}},
		{"-1", time.Time{}},
		{"-1.5e9", time.Time{}},
		{`"1.796136e9"`, time.Unix(1796136000, 0)},
	} {
		b := NewBatch(Limits{})
		dc.JSONLine([]byte(`{"ts":`+c.ts+`,"level":"error","msg":"a","service":"x"}`), b)
		switch {
		case c.want.IsZero():
			if b.Len() != 0 || b.Stats.Rejects[ReasonBadTime] != 1 {
				t.Errorf("ts %s: kept %d, rejects %v; want bad_timestamp", c.ts, b.Len(), b.Stats.Rejects)
			}
		case b.Len() != 1:
			t.Errorf("ts %s: rejected %v", c.ts, b.Stats.Rejects)
		case !b.Records[0].Time.Equal(c.want):
			t.Errorf("ts %s: time %v, want %v", c.ts, b.Records[0].Time, c.want.UTC())
		}
	}
}
