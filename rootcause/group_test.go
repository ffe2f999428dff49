package rootcause_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"regexp"
	"testing"
	"time"

	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/sim"
	"github.com/faultline/faultline/store/sqlite"
)

// groupedSample is the embedded store, its sample of a window sending the
// errors of the traces out of it grouped, as ClickHouse's server does
// (schema.WindowQuery.Group): one record per group alike, the group's
// first, with its size. groups and alike count the groups sent and the
// records they stood for beyond their first.
type groupedSample struct {
	*sqlite.DB
	groups, alike int
}

func (g *groupedSample) SampledRecords(ctx context.Context, q schema.WindowQuery, k, failK uint64, failing func(schema.TraceID) bool) iter.Seq2[schema.Record, error] {
	return func(yield func(schema.Record, error) bool) {
		var out []schema.Record
		first := map[string]int{} // a group's first record, in out
		for r, err := range g.DB.SampledRecords(ctx, q, k, failK, failing) {
			if err != nil {
				yield(schema.Record{}, err)
				return
			}
			h := schema.TraceHash(r.TraceID)
			if q.Group == nil || r.TraceID == "" || !r.IsError() || h%k == 0 || failing(r.TraceID) && h%failK == 0 {
				out = append(out, r)
				continue
			}
			body := r.Body // the template's, when none was stored
			if r.Template != "" {
				body = ""
			}
			part := int(float64(q.Group.Parts) * float64(r.Time.Sub(q.From)) / float64(q.To.Sub(q.From)))
			key := fmt.Sprint(r.Type, r.Service, r.Severity, r.SeverityText, r.Name, r.Status, r.Template, r.Signature, body,
				r.Attrs, r.Time.UnixNano()/int64(q.Group.Slot), part)
			if i, ok := first[key]; ok {
				out[i].Count = max(out[i].Count, 1) + 1
				g.alike++
				continue
			}
			first[key] = len(out)
			out = append(out, r)
			g.groups++
		}
		for _, r := range out {
			if !yield(r, nil) {
				return
			}
		}
	}
}

// TestGroupedErrorsSameReport: a window whose store sends the errors of
// the traces out of its sample grouped, each group as its first record
// and its size, is reported as it is when the store sends every one of
// them: the same counts, timelines, templates, candidates and failing
// traces, only fewer records sent.
func TestGroupedErrorsSameReport(t *testing.T) {
	st, q := simStore(t, sim.Config{Seed: 5, Fault: schema.KindDBPoolExhaustion, Baseline: 10 * time.Minute,
		Window: 5 * time.Minute, TracesPerSecond: 4})
	opt := rootcause.Options{SampleAbove: 3000, SampleFailingAbove: 20}
	whole, err := rootcause.Analyze(context.Background(), st, q, opt)
	if err != nil {
		t.Fatal(err)
	}
	g := &groupedSample{DB: st}
	grouped, err := rootcause.Analyze(context.Background(), g, q, opt)
	if err != nil {
		t.Fatal(err)
	}
	if g.groups == 0 || g.alike == 0 || whole.Sampled == nil || whole.Sampled.FailingK < 2 {
		t.Fatalf("%d groups standing for %d more records, sample %+v: the case groups nothing", g.groups, g.alike, whole.Sampled)
	}
	if grouped.Sampled == nil || grouped.Sampled.Sent != whole.Sampled.Sent-g.alike {
		t.Errorf("grouped, %+v sent; every record, %d, of which %d were grouped with their first", grouped.Sampled, whole.Sampled.Sent, g.alike)
	}
	sent := regexp.MustCompile(`\d+ of its (\d+) records sent`)
	text := func(rep *rootcause.Report) string {
		rep.Sampled.Sent = 0
		for i, w := range rep.Warnings {
			rep.Warnings[i] = sent.ReplaceAllString(w, "N of its $1 records sent")
		}
		b, err := json.MarshalIndent(rep, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if a, b := text(whole), text(grouped); a != b {
		t.Errorf("grouped, the report differs:\n%s\nevery record:\n%s", b, a)
	}
}
