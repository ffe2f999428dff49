package runbookgen

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/schema"
)

// memDocs is an in-memory DocStore.
type memDocs struct {
	docs map[string][]byte
	fail error
}

func (m *memDocs) PutDoc(_ context.Context, kind, id string, doc []byte) error {
	if m.fail != nil {
		return m.fail
	}
	m.docs[kind+"/"+id] = append([]byte(nil), doc...)
	return nil
}

func (m *memDocs) GetDoc(_ context.Context, kind, id string) ([]byte, error) {
	d, ok := m.docs[kind+"/"+id]
	if !ok {
		return nil, fmt.Errorf("doc %s/%s: %w", kind, id, schema.ErrNotFound)
	}
	return d, nil
}

func TestAttachSaveLoad(t *testing.T) {
	ctx := context.Background()
	g := newGen(t, Config{})
	rep := fixedReport(schema.KindDBPoolExhaustion)
	second := rep.Candidates[0]
	second.ID, second.Service, second.Kind, second.Rank, second.Traces = "cand-2", "checkout", schema.KindTimeout, 2, 20
	second.EntryPoints = []string{"invoice batch job"}
	rep.Candidates = append(rep.Candidates, second)

	rbs := g.Attach(rep)
	if len(rbs) != 2 {
		t.Fatalf("Attach returned %d runbooks", len(rbs))
	}
	for i, c := range rep.Candidates {
		ref := c.Runbook
		if ref == nil || ref.ID != rbs[i].ID || ref.URL != "/runbooks/"+ref.ID || !ValidID(ref.ID) {
			t.Fatalf("candidate %d: bad ref %+v", i, ref)
		}
		if !strings.HasPrefix(ref.ID, RunbookID(c.Service, c.Kind, c.Signature)+"-") {
			t.Errorf("candidate %d: id %q does not begin with the stable id", i, ref.ID)
		}
	}
	if rep.Candidates[0].Runbook.Severity != SevP1 || rep.Candidates[1].Runbook.Severity != SevP3 ||
		rep.Candidates[1].Runbook.MTTRTarget != "4h" {
		t.Errorf("severities %+v %+v", rep.Candidates[0].Runbook, rep.Candidates[1].Runbook)
	}

	ds := &memDocs{docs: map[string][]byte{}}
	if err := SaveAll(ctx, ds, rbs); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{rbs[0].ID, "cand-1"} {
		got, err := Load(ctx, ds, id)
		if err != nil {
			t.Fatalf("Load(%q): %v", id, err)
		}
		if got.Markdown != rbs[0].Markdown || got.Severity != rbs[0].Severity || got.CandidateID != "cand-1" {
			t.Errorf("Load(%q) round trip differs", id)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	ctx := context.Background()
	ds := &memDocs{docs: map[string][]byte{DocKind + "/junk": []byte("{not json")}}
	if _, err := Load(ctx, ds, "nope-123"); !errors.Is(err, schema.ErrNotFound) {
		t.Errorf("missing runbook: %v", err)
	}
	if _, err := Load(ctx, ds, "../etc/passwd"); !errors.Is(err, ErrBadID) {
		t.Errorf("bad id: %v", err)
	}
	if _, err := Load(ctx, ds, "junk"); !errors.Is(err, ErrCorrupt) {
		t.Errorf("corrupt doc: %v", err)
	}
	ds.fail = errors.New("disk full")
	if err := Save(ctx, ds, &Runbook{ID: "x"}); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("store error lost: %v", err)
	}
	if err := Save(ctx, ds, nil); !errors.Is(err, ErrBadID) {
		t.Errorf("nil runbook: %v", err)
	}
}

func TestForKindUnknown(t *testing.T) {
	g := newGen(t, Config{})
	if _, err := g.ForKind("nope"); !errors.Is(err, ErrUnknownKind) {
		t.Errorf("unknown kind: %v", err)
	}
	rb := g.ForCandidate(nil, nil)
	if rb == nil || rb.Kind != schema.KindUnknown {
		t.Errorf("nil candidate: %+v", rb)
	}
	rep := fixedReport("made-up-kind")
	rb = g.ForCandidate(rep, &rep.Candidates[0])
	if rb.Kind != schema.KindUnknown || !strings.Contains(rb.Markdown, "## Mitigation — now") {
		t.Errorf("invalid kind not handled: %+v", rb.Kind)
	}
}

func TestLinkAlertRunbook(t *testing.T) {
	g := newGen(t, Config{})
	rb, _ := g.ForKind(schema.KindTimeout)
	if err := rb.LinkAlertRunbook("https://wiki.example.com/runbooks/payment (old)"); err != nil {
		t.Fatal(err)
	}
	if err := rb.LinkAlertRunbook("https://wiki.example.com/runbooks/payment"); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(rb.Markdown, "\n")
	if !strings.HasPrefix(lines[2], alertLinePrefix) || !strings.HasSuffix(lines[2], "(https://wiki.example.com/runbooks/payment)") {
		t.Errorf("alert runbook not linked under the title: %q", lines[:4])
	}
	if strings.Count(rb.Markdown, alertLinePrefix) != 1 {
		t.Error("a second call adds a second link")
	}
	for _, bad := range []string{"javascript:alert(1)", "/relative", "https://x/\n# h", ""} {
		if err := rb.LinkAlertRunbook(bad); !errors.Is(err, ErrBadAlertURL) {
			t.Errorf("LinkAlertRunbook(%q) = %v", bad, err)
		}
	}
	if rb.AlertRunbookURL != "https://wiki.example.com/runbooks/payment" {
		t.Errorf("AlertRunbookURL = %q", rb.AlertRunbookURL)
	}
	if err := rb.LinkAlertRunbook("https://x.example/a)b<c>"); err != nil || strings.Contains(rb.Markdown, "a)b") {
		t.Errorf("link destination not escaped: %v", err)
	}
}

// TestSparseCandidate: a candidate with almost nothing known still gets a
// complete runbook without template leftovers.
func TestSparseCandidate(t *testing.T) {
	g := newGen(t, Config{})
	for _, k := range schema.Kinds {
		rep := &rootcause.Report{Candidates: []rootcause.Candidate{{Kind: k}}}
		rb := g.ForCandidate(rep, &rep.Candidates[0])
		checkSections(t, rb)
		if !ValidID(rb.ID) || !strings.Contains(rb.Markdown, "unknown service") {
			t.Errorf("%s: id %q or missing service placeholder", k, rb.ID)
		}
	}
}

// TestRunbookKeepsWhatItSaid: a runbook's id names its text. Another
// analysis of the same candidate over another window (more traces, a
// later first error) gets another id and leaves the first one's text as it
// was; the same analysis again gets the same id; the candidate's id and
// its service's key follow the latest.
func TestRunbookKeepsWhatItSaid(t *testing.T) {
	ctx := context.Background()
	g := newGen(t, Config{})
	ds := &memDocs{docs: map[string][]byte{}}
	first := fixedReport(schema.KindDBPoolExhaustion)
	rbs := g.Attach(first)
	if err := SaveAll(ctx, ds, rbs); err != nil {
		t.Fatal(err)
	}
	id, said := rbs[0].ID, rbs[0].Markdown
	if !strings.Contains(said, "/runbooks/"+id) || !strings.Contains(said, "180 failing traces") {
		t.Fatalf("the first runbook does not link itself or lacks its numbers:\n%s", said)
	}
	if again := g.Attach(fixedReport(schema.KindDBPoolExhaustion)); again[0].ID != id || again[0].Markdown != said {
		t.Errorf("the same analysis gave id %q, want %q again", again[0].ID, id)
	}

	later := fixedReport(schema.KindDBPoolExhaustion)
	later.Window.From, later.Window.To = later.Window.From.Add(time.Hour), later.Window.To.Add(2*time.Hour)
	later.Traces, later.Candidates[0].Traces = 5000, 300
	next := g.Attach(later)
	if err := SaveAll(ctx, ds, next); err != nil {
		t.Fatal(err)
	}
	if next[0].ID == id || !strings.HasPrefix(next[0].ID, RunbookID("payment", schema.KindDBPoolExhaustion, "9f86d081884c7d65")) {
		t.Fatalf("the later analysis's runbook id %q, first %q: want another version of the same stable id", next[0].ID, id)
	}
	got, err := Load(ctx, ds, id)
	if err != nil {
		t.Fatal(err)
	}
	if got.Markdown != said || got.ID != id {
		t.Errorf("runbook %s changed after another analysis:\n%s", id, got.Markdown)
	}
	if !got.From.Equal(first.Window.From) || !got.To.Equal(first.Window.To) {
		t.Errorf("runbook %s is of window %v-%v, want the first analysis's", id, got.From, got.To)
	}
	for _, alias := range []string{"cand-1", ServiceKey("payment")} {
		if latest, err := Load(ctx, ds, alias); err != nil || latest.ID != next[0].ID {
			t.Errorf("%s gives %v (%v), want the latest version %s", alias, latest, err, next[0].ID)
		}
	}
}

// TestForSuspect: a trace's suspect links the runbook the latest analysis
// wrote for that service while the trace falls in its window (or the hour
// after), never another service's or another time's.
func TestForSuspect(t *testing.T) {
	ctx := context.Background()
	g := newGen(t, Config{})
	ds := &memDocs{docs: map[string][]byte{}}
	rep := fixedReport(schema.KindDBPoolExhaustion)
	worse := rep.Candidates[0]
	worse.ID, worse.Rank, worse.Kind, worse.Signature = "cand-2", 2, schema.KindTimeout, "0000000000000001"
	rep.Candidates = append(rep.Candidates, worse)
	rbs := g.Attach(rep)
	if err := SaveAll(ctx, ds, rbs); err != nil {
		t.Fatal(err)
	}
	in := rep.Window.From.Add(10 * time.Minute)
	rb, err := ForSuspect(ctx, ds, "payment", in)
	if err != nil || rb.ID != rbs[0].ID {
		t.Fatalf("ForSuspect(payment) = %v, %v; want the best-ranked candidate's runbook %s", rb, err, rbs[0].ID)
	}
	for _, c := range []struct {
		svc string
		at  time.Time
	}{{"checkout", in}, {"payment", rep.Window.From.Add(-time.Minute)}, {"payment", rep.Window.To.Add(2 * time.Hour)}} {
		if rb, err := ForSuspect(ctx, ds, c.svc, c.at); !errors.Is(err, schema.ErrNotFound) {
			t.Errorf("ForSuspect(%s, %v) = %v, %v; want not found", c.svc, c.at, rb, err)
		}
	}
}

// TestRefreshKeepsTheVersion: an analysis of an overlapping window minutes
// later (a page refreshing itself) that gives the candidate the same
// severity keeps the version saved before, not one more; another severity,
// or the same after versionEvery, writes a new version.
func TestRefreshKeepsTheVersion(t *testing.T) {
	ctx := context.Background()
	g := newGen(t, Config{})
	ds := &memDocs{docs: map[string][]byte{}}
	save := func(shift time.Duration, traces int, written time.Duration) *Runbook {
		t.Helper()
		rep := fixedReport(schema.KindDBPoolExhaustion)
		rep.Window.From, rep.Window.To = rep.Window.From.Add(shift), rep.Window.To.Add(shift)
		rep.Candidates[0].Traces = traces
		rbs := g.Attach(rep)
		rbs[0].Written = time.Date(2026, 3, 14, 10, 0, 0, 0, time.UTC).Add(written)
		if err := SaveAll(ctx, ds, rbs); err != nil {
			t.Fatal(err)
		}
		return rbs[0]
	}
	first := save(0, 1, 0) // one failing trace of 1200: P2
	if again := save(15*time.Second, 2, 15*time.Second); again.ID != first.ID || again.Markdown != first.Markdown {
		t.Errorf("a refresh 15 s later wrote version %s, want %s kept", again.ID, first.ID)
	}
	if worse := save(30*time.Second, 1100, 30*time.Second); worse.ID == first.ID || worse.Severity == first.Severity {
		t.Errorf("a refresh that changed the severity (%s) kept version %s", worse.Severity, worse.ID)
	}
	if later := save(6*time.Minute, 1100, 7*time.Minute); later.ID == first.ID {
		t.Errorf("an analysis 7 minutes later kept version %s", later.ID)
	}
	if got, err := Load(ctx, ds, first.ID); err != nil || got.Markdown != first.Markdown {
		t.Errorf("the first version changed: %v", err)
	}
}
