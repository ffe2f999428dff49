package patterns

import (
	"fmt"
	"strings"
	"testing"
)

// TestMinerHostOfAnyShape checks that a host the masker leaves as a word
// (no dot, an unknown domain, in capitals) becomes a variable from the
// lines, even as the first word, where it routes a line to its own group.
func TestMinerHostOfAnyShape(t *testing.T) {
	hosts := []string{"proxyhost", "mirror.shop.zyx", "FILESRV01", "cache.kz", "db-7", "edge.example.qqq"}
	var lines []string
	for i := range 40 {
		host := fmt.Sprintf("10.1.%d.%d", i%7, i) // masked: the fast path
		if i%5 == 0 {
			host = hosts[i/5%len(hosts)]
		}
		lines = append(lines, fmt.Sprintf("%s:%d close, %d bytes sent, %d bytes received, lifetime 00:%02d", host, 80+i, i*100, i*7, i))
	}
	got := minedCounts(lines)
	if len(got) != 1 || got["<*> close, <*> sent, <*> received, lifetime <*>"] != 40 {
		t.Errorf("hosts of unmasked shapes split the template: %v", got)
	}
	// Only unmasked hosts, none of them masked: they vary, so they are one
	// variable.
	lines = lines[:0]
	for i := range 12 {
		lines = append(lines, fmt.Sprintf("upstream %s marked down after %d failed checks", hosts[i%len(hosts)], i))
	}
	if got := minedCounts(lines); len(got) != 1 {
		t.Errorf("six hosts with no digit split the template: %v", got)
	}
}

// TestMinerEmptyLeadingField checks that a line with its program left
// empty (": error ...") or missing altogether joins the same statement
// from named programs.
func TestMinerEmptyLeadingField(t *testing.T) {
	var lines []string
	for i := range 30 {
		prog := []string{"backupd[%d]:", "rsyncer:", ":", ""}[i%4]
		if strings.Contains(prog, "%d") {
			prog = fmt.Sprintf(prog, 100+i)
		}
		lines = append(lines, strings.TrimSpace(fmt.Sprintf("%s error: cannot open /srv/data-%d: Permission denied", prog, i)))
	}
	if got := minedCounts(lines); len(got) != 1 {
		t.Errorf("an empty or missing program split the template: %v", got)
	}
	// With no named program to show the place is variable, the lone ':'
	// is still an empty program, not a word of the message.
	got := minedCounts([]string{": session 12 closed by peer", "session 13 closed by peer", ": session 14 closed by peer", "session 15 closed by peer"})
	if len(got) != 1 {
		t.Errorf("an empty program split the template: %v", got)
	}
}

// TestMinerEventWordsStay checks what the merging must not undo: a
// handful of words that name the event split it, wherever the lines were
// routed, and a constant word missing beside a variable is not taken for
// a missing variable.
func TestMinerEventWordsStay(t *testing.T) {
	var lines []string
	for i := range 30 {
		lines = append(lines,
			fmt.Sprintf("[instance: %08x] VM %s (Lifecycle Event)", i, []string{"Paused", "Resumed", "Started"}[i%3]),
			fmt.Sprintf("%s Task Transitioned from A to B", fmt.Sprint("task_", i)),
			fmt.Sprintf("%s Transitioned from A to B", fmt.Sprint("job_", i)))
	}
	got := minedCounts(lines)
	if len(got) != 5 {
		t.Errorf("got %d templates, want 3 VM events and 2 transitions: %v", len(got), got)
	}
}

// TestMinerRecurringValues checks that values which turn up in another
// statement are a variable however few they are, while as many words
// that belong to one statement still split it.
func TestMinerRecurringValues(t *testing.T) {
	users := []string{"news", "cyrus", "test", "root"}
	var lines []string
	for i := range 40 {
		u := users[i%len(users)]
		lines = append(lines,
			fmt.Sprintf("session opened for user %s by (uid=%d)", u, i%3),
			"session closed for user "+u)
	}
	m := NewMiner(Config{MaxVariants: 5})
	for _, l := range lines {
		m.Add(l)
	}
	if got := m.Templates(); len(got) != 2 {
		t.Errorf("users seen in two statements split them: %v", got)
	}
	lines = lines[:0]
	for i := range 40 {
		lines = append(lines, fmt.Sprintf("[instance: %08x] VM %s (Lifecycle Event)", i, []string{"Paused", "Resumed", "Started", "Stopped"}[i%4]))
	}
	m = NewMiner(Config{MaxVariants: 5})
	for _, l := range lines {
		m.Add(l)
	}
	if got := m.Templates(); len(got) != 4 {
		t.Errorf("four event words of one statement did not split it: %v", got)
	}
}
