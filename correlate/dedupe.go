package correlate

import (
	"slices"

	"github.com/faultline/faultline/schema"
)

// dedupe keeps one copy of records shipped twice (two agents tailing the
// same file, a retried batch): same type, time, span, service, severity and
// text. It also sorts the entries by raw time, which later steps rely on
// for stable tie-breaking. Records of another trace than the first are
// dropped with a warning.
func dedupe(t *Trace) {
	t.ents = make([]entry, 0, len(t.recs))
	foreign := 0
	for i := range t.recs {
		r := &t.recs[i]
		if t.ID == "" {
			t.ID = r.TraceID
		}
		if r.TraceID != "" && r.TraceID != t.ID {
			foreign++
			continue
		}
		t.ents = append(t.ents, entry{rec: int32(i), node: -1, svc: -1, fail: -1})
	}
	if foreign > 0 {
		t.Warnf("ignored %d records of other traces", foreign)
	}
	slices.SortStableFunc(t.ents, func(a, b entry) int {
		return t.recs[a.rec].Time.Compare(t.recs[b.rec].Time)
	})
	kept := t.ents[:0]
	dups := 0
	for i := range t.ents {
		if isDuplicate(t, kept, t.ents[i].rec) {
			dups++
			continue
		}
		kept = append(kept, t.ents[i])
	}
	t.ents = kept
	if dups > 0 {
		t.Warnf("dropped %d duplicate records", dups)
	}
}

// dupWindow is how many kept records of the same time isDuplicate
// compares with: enough for re-sent batches, and linear for the thousands
// of lines that loggers with second-precision timestamps give one time.
const dupWindow = 64

// isDuplicate reports whether rec equals a kept record of the same time.
// kept is sorted by time, so only its tail needs looking at.
func isDuplicate(t *Trace, kept []entry, rec int32) bool {
	r := &t.recs[rec]
	for j := len(kept) - 1; j >= 0 && j >= len(kept)-dupWindow; j-- {
		k := &t.recs[kept[j].rec]
		if !k.Time.Equal(r.Time) {
			return false
		}
		if SameRecord(k, r) {
			return true
		}
	}
	return false
}

// SameRecord reports whether b repeats a: a record shipped twice has the
// same type, span, service, severity, text, name, duration and status (and
// time, which callers compare first).
func SameRecord(a, b *schema.Record) bool {
	return a.Type == b.Type && a.SpanID == b.SpanID && a.Service == b.Service &&
		a.Severity == b.Severity && a.Body == b.Body && a.Name == b.Name &&
		a.Duration == b.Duration && a.Status == b.Status
}
