package patterns

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// sampleLines mixes event words (VM states), free-text variables (user
// names) and masked variables, in a fixed order.
func sampleLines() []string {
	var out []string
	states := []string{"Paused", "Resumed", "Started"}
	users := []string{"admin", "oracle", "test", "guest", "support", "ftp", "mysql", "nagios", "ubuntu", "pi"}
	for i := range 40 {
		out = append(out,
			fmt.Sprintf("[instance: %08x-aaaa-bbbb-cccc-%012d] VM %s (Lifecycle Event)", i*7919, i, states[i%len(states)]),
			fmt.Sprintf("Invalid user %s from 10.0.%d.%d", users[i%len(users)], i%7, i),
			fmt.Sprintf("timeout calling inventory after %dms", 100+i*13),
		)
	}
	return out
}

func mine(lines []string) (*Miner, []string) {
	m := NewMiner(Config{})
	ids := make([]string, len(lines))
	for i, l := range lines {
		ids[i] = m.Add(l)
	}
	return m, ids
}

func TestMinerGroups(t *testing.T) {
	m, _ := mine(sampleLines())
	got := map[string]int{}
	total := 0
	for _, tp := range m.Templates() {
		got[tp.Template] = tp.Count
		total += tp.Count
	}
	want := map[string]int{
		"[instance: <*>] VM Paused (Lifecycle Event)":  14,
		"[instance: <*>] VM Resumed (Lifecycle Event)": 13,
		"[instance: <*>] VM Started (Lifecycle Event)": 13,
		"Invalid user <*> from <*>":                    40,
		"timeout calling inventory after <*>":          40,
	}
	for tmpl, n := range want {
		if got[tmpl] != n {
			t.Errorf("template %q: count %d, want %d (all: %v)", tmpl, got[tmpl], n, got)
		}
	}
	if len(got) != len(want) || total != len(sampleLines()) {
		t.Errorf("got %d templates over %d lines, want %d over %d: %v", len(got), total, len(want), len(sampleLines()), got)
	}
}

func TestMinerDeterministic(t *testing.T) {
	lines := sampleLines()
	m1, ids1 := mine(lines)
	m2, ids2 := mine(lines)
	if !slices.Equal(m1.Templates(), m2.Templates()) {
		t.Fatalf("same input, different templates:\n%v\n%v", m1.Templates(), m2.Templates())
	}
	for i := range ids1 {
		a, _ := m1.Lookup(ids1[i])
		b, _ := m2.Lookup(ids2[i])
		if ids1[i] != ids2[i] || a != b {
			t.Fatalf("line %d: ids %s/%s resolve to %v and %v", i, ids1[i], ids2[i], a, b)
		}
	}
}

func TestMinerTemplatesSorted(t *testing.T) {
	m, _ := mine(sampleLines())
	ts := m.Templates()
	for i := 1; i < len(ts); i++ {
		a, b := ts[i-1], ts[i]
		if a.Count < b.Count || (a.Count == b.Count && a.ID > b.ID) {
			t.Fatalf("templates not sorted by count then id at %d: %v then %v", i, a, b)
		}
	}
}

// TestMinerLookupAfterGeneralising checks that an id returned early
// resolves to the final group once later messages widened it.
func TestMinerLookupAfterGeneralising(t *testing.T) {
	m := NewMiner(Config{})
	first := m.Add("Invalid user admin from 10.0.0.1")
	for _, u := range []string{"oracle", "test", "guest", "ftp", "pi", "www"} {
		m.Add("Invalid user " + u + " from 10.0.0.2")
	}
	got, ok := m.Lookup(first)
	if !ok || got.Template != "Invalid user <*> from <*>" || got.Count != 7 {
		t.Fatalf("Lookup(first) = %+v, %v; want the widened template with 7 lines", got, ok)
	}
	if got.ID != TemplateID(got.Template) {
		t.Errorf("final id %s is not the id of its text %q", got.ID, got.Template)
	}
	if again, ok := m.Lookup(got.ID); !ok || again != got {
		t.Errorf("a final id does not resolve to itself: %+v", again)
	}
	if _, ok := m.Lookup("no-such-id"); ok {
		t.Error("Lookup of an unknown id succeeded")
	}
}

func TestMinerAddCountMasked(t *testing.T) {
	m := NewMiner(Config{Masked: true})
	a := m.AddCount("payment timed out after <*>", 5)
	b := m.AddCount("payment timed out after <*>", 0)
	if a != b {
		t.Fatalf("same template, ids %s and %s", a, b)
	}
	if c := m.AddCount("payment  timed out\tafter <*>", 1); c != a {
		t.Errorf("whitespace changed the id: %s, want %s", c, a)
	}
	ts := m.Templates()
	if len(ts) != 1 || ts[0].Count != 7 || ts[0].Template != "payment timed out after <*>" {
		t.Fatalf("templates = %+v, want one with count 7", ts)
	}
}

func TestMinerEmpty(t *testing.T) {
	m := NewMiner(Config{})
	if ts := m.Templates(); len(ts) != 0 {
		t.Fatalf("empty miner has templates %v", ts)
	}
	id := m.Add("   ")
	got, ok := m.Lookup(id)
	if !ok || got.Template != "" || got.Count != 1 {
		t.Fatalf("blank message: %+v, %v", got, ok)
	}
}

// TestTemplateIDStable pins ids and signatures to FNV-1a 64 (service, a
// zero byte, template), so ids in stored links and signatures in stores
// survive upgrades.
func TestTemplateIDStable(t *testing.T) {
	tmpl := "Invalid user <*> from <*>"
	h := fnv.New64a()
	h.Write(append([]byte{0}, tmpl...))
	want := fmt.Sprintf("%016x", h.Sum64())
	if got := TemplateID(tmpl); got != want {
		t.Errorf("TemplateID = %s, want %s", got, want)
	}
	h = fnv.New64a()
	h.Write([]byte("checkout\x00" + tmpl))
	if got, want := string(SignatureOf("checkout", tmpl)), fmt.Sprintf("%016x", h.Sum64()); got != want {
		t.Errorf("SignatureOf = %s, want %s", got, want)
	}
	if TemplateID("a") == TemplateID("b") {
		t.Error("different texts, same id")
	}
}

func TestGlobMatch(t *testing.T) {
	tests := []struct {
		pattern, word string
		want          bool
	}{
		{"(<*>)", "()", true},
		{"(<*>)", "(uid=0)", true},
		{"rhost=<*>", "rhost=host.example", true},
		{"depth...<*>", "threshold...<*>", false},
		{"<*>:<*>", "a:b:c", true},
		{"a<*>b<*>c", "aXbYc", true},
		{"a<*>b<*>c", "aXbY", false},
		{"plain", "plain", true},
		{"plain", "plainer", false},
	}
	for _, tt := range tests {
		if got := globMatch(tt.pattern, tt.word); got != tt.want {
			t.Errorf("globMatch(%q, %q) = %v, want %v", tt.pattern, tt.word, got, tt.want)
		}
	}
}

func TestMergeToken(t *testing.T) {
	tests := []struct{ a, b, want string }{
		{"user=root", "user=bob", "user=<*>"},
		{"(uid=<*>)", "()", "(<*>)"},
		{"rhost=<*>", "rhost=a.b", "rhost=<*>"},
		{"session", "started", Wildcard},
		{"x", "x", "x"},
	}
	for _, tt := range tests {
		if got := mergeToken(tt.a, tt.b); got != tt.want {
			t.Errorf("mergeToken(%q, %q) = %q, want %q", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestStripHeader(t *testing.T) {
	tests := []struct{ in, want string }{
		{"2024-05-01 12:00:00,123 ERROR payment timed out", "payment timed out"},
		{"[2024-05-01T12:00:00Z] [warn] pool exhausted", "pool exhausted"},
		{"Jul  2 04:07:18 combo sshd(pam_unix)[19432]: session opened", "combo sshd(pam_unix)[19432]: session opened"},
		{"INFO o.a.Main - started", "o.a.Main - started"},
		{"no header here", "no header here"},
		{"2015-10-18 18:01:47,978 INFO [IPC Server handler 5 on 62270] o.a.h.Foo: started", "o.a.h.Foo: started"},
		{"2015-07-29 17:41:44,747 - INFO  [Peer[myid=1]/0:2181:Election@774] - time out: 3200", "- time out: 3200"},
		{"081109 203615 148 INFO dfs.DataNode: Receiving block", "dfs.DataNode: Receiving block"},
		{"Got HTTP ERROR 500 from upstream", "Got HTTP ERROR 500 from upstream"},
		{"pid 12 hit an error here", "pid 12 hit an error here"},
		{"2024-05-01 ERROR", "2024-05-01 ERROR"},
	}
	for _, tt := range tests {
		if got := StripHeader(tt.in); got != tt.want {
			t.Errorf("StripHeader(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func BenchmarkMinerAdd(b *testing.B) {
	lines := sampleLines()
	for i := range 2000 {
		lines = append(lines, "worker "+strconv.Itoa(i%50)+" finished job "+strconv.Itoa(i)+" in "+strconv.Itoa(i%900)+"ms")
	}
	m := NewMiner(Config{})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.Add(lines[i%len(lines)])
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}

// FuzzMiner checks that any input lines mine without panic, that every id
// resolves, and that the counts add up.
func FuzzMiner(f *testing.F) {
	f.Add("a b c\na b d\na x c\n\nuser=bob\nuser=<*>")
	f.Add("VM Paused (x)\nVM Resumed (y)\n1 2 3\n()\n(<*>)")
	f.Fuzz(func(t *testing.T, in string) {
		m := NewMiner(Config{})
		lines := strings.Split(in, "\n")
		ids := make([]string, len(lines))
		for i, l := range lines {
			ids[i] = m.Add(l)
		}
		total := 0
		for _, tp := range m.Templates() {
			total += tp.Count
			if tp.ID != TemplateID(tp.Template) {
				t.Fatalf("template %q has id %s", tp.Template, tp.ID)
			}
		}
		if total != len(lines) {
			t.Fatalf("counts add up to %d for %d lines", total, len(lines))
		}
		for i, id := range ids {
			if _, ok := m.Lookup(id); !ok {
				t.Fatalf("line %d: id %s does not resolve", i, id)
			}
		}
	})
}

// minedCounts mines lines and returns how many lines each template got.
func minedCounts(lines []string) map[string]int {
	m, _ := mine(lines)
	got := map[string]int{}
	for _, tp := range m.Templates() {
		got[tp.Template] += tp.Count
	}
	return got
}

// TestMinerOptionalSegment checks that a short segment written only
// sometimes (a parenthesised size, a "(took ...)") does not split a template,
// while a constant word that differs still does.
func TestMinerOptionalSegment(t *testing.T) {
	var lines []string
	for i := range 60 {
		opt := ""
		switch i % 3 {
		case 1:
			opt = fmt.Sprintf(" (%d.%02d KB)", i, i)
		case 2:
			opt = fmt.Sprintf(" (took %dms)", i*7)
		}
		lines = append(lines, fmt.Sprintf("copied %d bytes%s to backup-%d", i*1024, opt, i))
	}
	got := minedCounts(lines)
	if len(got) != 1 {
		t.Errorf("an optional segment split the template: %v", got)
	}
	got = minedCounts([]string{"worker 1 done (young)", "worker 2 done (young)", "worker 3 done (mixed)", "worker 4 done (mixed)"})
	if len(got) != 2 {
		t.Errorf("constant parenthesised words that differ should split: %v", got)
	}
}

// TestMinerQuotedNames checks that quoted multi-word names of any length
// take one position, and that request lines in quotes are not taken as
// names.
func TestMinerQuotedNames(t *testing.T) {
	names := []string{"Nightly Backup", "Sync Customers", "Rebuild Search Index", "Clean up tmp", "Daily Digest", "O'Brien Export"}
	var lines []string
	for i := range 30 {
		lines = append(lines, fmt.Sprintf("Job '%s' finished in %ds", names[i%len(names)], i))
	}
	if got := minedCounts(lines); len(got) != 1 || got["Job '<*>' finished in <*>"] != 30 {
		t.Errorf("quoted names split the template: %v", got)
	}
	if got := joinQuoted(strings.Fields(`x "GET <*> HTTP/<*>" status: <*>`)); len(got) != 6 {
		t.Errorf("a request line was joined as a name: %q", got)
	}
}

// TestMinerLeadingProgram checks that the process writing a line does not
// split its template (a pid, another binary, a masked program name), while
// a logger name (a class) still names the event.
func TestMinerLeadingProgram(t *testing.T) {
	var lines []string
	progs := []string{"CRON[%d]:", "crond[%d]:"}
	users := []string{"root", "alice", "bob", "deploy", "git", "www-data"}
	for i := range 30 {
		lines = append(lines, fmt.Sprintf(progs[i%2]+" (%s) CMD (/usr/bin/run-%d)", 100+i, users[i%len(users)], i))
	}
	if got := minedCounts(lines); len(got) != 1 {
		t.Errorf("the program split a cron template: %v", got)
	}
	lines = lines[:0]
	exes := []string{"chrome.exe", "curl", "Teams.exe", "svchost.exe", "chrome.exe *64"}
	for i := range 30 {
		lines = append(lines, fmt.Sprintf("%s - api%d.example.com:443 open through proxy proxy.example.com:5070 HTTPS", exes[i%len(exes)], i))
	}
	if got := minedCounts(lines); len(got) != 1 {
		t.Errorf("the program split a proxy template: %v", got)
	}
	got := minedCounts([]string{"dfs.DataNode: Receiving block", "dfs.DataNode: Receiving block", "dfs.FSNamesystem: Receiving block"})
	if len(got) != 2 {
		t.Errorf("logger names should split: %v", got)
	}
}

func TestSkeleton(t *testing.T) {
	key := func(s string) uint64 { k, _ := skeleton(strings.Fields(s)); return k }
	if key("copied <*> bytes (<*>) to <*>") != key("copied <*> bytes to <*>") {
		t.Error("a parenthesised variable is not optional")
	}
	if key("copied <*> bytes (took <*>) to <*>") != key("copied <*> bytes to <*>") {
		t.Error("a two-token parenthesised segment with a variable is not optional")
	}
	if key("done (young)") == key("done") {
		t.Error("a constant segment was taken as optional")
	}
	if key("CRON[<*>]: x y") != key("crond[<*>]: x y") {
		t.Error("the leading program is part of the skeleton")
	}
	if _, ok := skeleton(strings.Fields("<*> (<*>) done")); ok {
		t.Error("a skeleton of one constant token was accepted")
	}
}
