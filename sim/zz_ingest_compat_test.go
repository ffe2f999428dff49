package sim

// Temporary: checks the simulator's files against the project's ingest. Not to be kept.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/faultline/faultline/ingest"
	"github.com/faultline/faultline/schema"
)

type memSink struct{ recs []schema.Record }

func (m *memSink) WriteBatch(_ context.Context, recs []schema.Record) error {
	m.recs = append(m.recs, recs...)
	return nil
}

func TestZZIngestCompat(t *testing.T) {
	for seed := int64(1); seed <= 16; seed++ {
		inc := mustGenerate(t, small(seed, FaultKinds()[seed%8]))
		dir := t.TempDir()
		if err := inc.WriteCase(dir); err != nil {
			t.Fatal(err)
		}
		sink := &memSink{}
		l := ingest.NewLoader(ingest.NewDecoder(ingest.DecoderConfig{Limits: ingest.DefaultLimits()}), sink, nil)
		files, _ := os.ReadDir(dir)
		for _, f := range files {
			if f.Name() == "truth.json" {
				continue
			}
			fh, _ := os.Open(filepath.Join(dir, f.Name()))
			st, format, err := l.Load(context.Background(), f.Name(), fh)
			fh.Close()
			if err != nil || st.Rejected > 0 {
				fmt.Println(seed, f.Name(), format, st, err)
			}
		}
		// compare per service: log records, with trace, errors, versions
		type agg struct{ logs, traced, errs, warns, spans, versioned, status int }
		want, got := map[string]*agg{}, map[string]*agg{}
		add := func(m map[string]*agg, r *schema.Record) {
			a := m[r.Service]
			if a == nil {
				a = &agg{}
				m[r.Service] = a
			}
			if r.Type == schema.TypeSpan {
				a.spans++
				return
			}
			a.logs++
			if r.Attrs["service.version"] != "" {
				a.versioned++
			}
			if r.Attrs["http.response.status_code"] != "" {
				a.status++
			}
			if r.TraceID != "" {
				a.traced++
			}
			if r.Severity >= schema.SeverityError {
				a.errs++
			} else if r.Severity >= schema.SeverityWarn {
				a.warns++
			}
		}
		for i := range inc.Records {
			add(want, &inc.Records[i])
		}
		ids := map[schema.TraceID]bool{}
		for i := range sink.recs {
			add(got, &sink.recs[i])
			ids[sink.recs[i].TraceID] = true
		}
		var names []string
		for n := range want {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			w, g := want[n], got[n]
			if g == nil {
				g = &agg{}
			}
			if *w != *g {
				fmt.Printf("seed %d %-20s %-16s want %+v got %+v\n", seed, n, inc.Truth.Services[n], *w, *g)
			}
		}
		missing := 0
		for id := range inc.Truth.FailedTraces {
			if !ids[id] {
				missing++
			}
		}
		if missing > 0 {
			fmt.Println(seed, "failed traces missing after ingest:", missing)
		}
	}
}
