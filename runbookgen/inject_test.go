package runbookgen

import (
	"regexp"
	"strings"
	"testing"

	"github.com/faultline/faultline/schema"
)

// hostile is log text written to break Markdown, HTML and commands.
const hostile = "pay`ment\n\n# Injected heading\n</script><script>alert(1)</script> " +
	"[x](javascript:alert(1)) ![i](https://evil.example/p.png) <img src=x onerror=alert(1)> " +
	"'; DROP TABLE otel_logs; -- $(rm -rf /) \" |= \"\r\n```\n"

// outsideCode returns md without fenced blocks, code spans and backslash
// escapes: what a CommonMark renderer would interpret.
func outsideCode(t *testing.T, md string) string {
	t.Helper()
	var b strings.Builder
	inFence := false
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "```") {
			inFence = !inFence
			continue
		}
		if !inFence {
			b.WriteString(stripSpans(l) + "\n")
		}
	}
	if inFence {
		t.Fatal("a code fence is never closed")
	}
	return regexp.MustCompile(`\\[[:punct:]]`).ReplaceAllString(b.String(), "")
}

// stripSpans removes CommonMark code spans from one line.
func stripSpans(l string) string {
	var b strings.Builder
	for i := 0; i < len(l); {
		if l[i] != '`' {
			b.WriteByte(l[i])
			i++
			continue
		}
		n := 0
		for i+n < len(l) && l[i+n] == '`' {
			n++
		}
		fence := strings.Repeat("`", n)
		end := -1
		for j := i + n; j < len(l); {
			k := strings.Index(l[j:], fence)
			if k < 0 {
				break
			}
			k += j
			if (k+n == len(l) || l[k+n] != '`') && (l[k-1] != '`') {
				end = k
				break
			}
			j = k + 1
		}
		if end < 0 {
			b.WriteString(l[i:]) // an unmatched run is literal text
			break
		}
		i = end + n
	}
	return b.String()
}

func TestInjection(t *testing.T) {
	g := newGen(t, Config{})
	for _, k := range schema.Kinds {
		rep := fixedReport(k)
		base := g.ForCandidate(rep, &rep.Candidates[0]).Markdown
		c := &rep.Candidates[0]
		c.Service, c.Template, c.Operation = hostile, hostile, hostile
		c.PointedFrom = []string{hostile}
		c.EntryPoints = []string{hostile}
		c.Evidence = []string{hostile}
		c.ExampleTraces = []schema.TraceID{schema.TraceID(hostile)}
		rb := g.ForCandidate(rep, c)
		md := rb.Markdown

		if got, want := strings.Count(md, "\n## "), strings.Count(base, "\n## "); got != want {
			t.Errorf("%s: %d headings, want %d", k, got, want)
		}
		if strings.Contains(md, "\n# Injected") {
			t.Errorf("%s: a log line became a heading", k)
		}
		rendered := outsideCode(t, md)
		for _, bad := range []string{"<", "](javascript", "![", "onerror="} {
			if strings.Contains(rendered, bad) {
				i := strings.Index(rendered, bad)
				t.Errorf("%s: %q reaches the Markdown outside code: %q", k, bad, rendered[max(0, i-80):i+20])
			}
		}
		if strings.Contains(rb.Title, "\n") || len([]rune(rb.Service)) > MaxServiceLen {
			t.Errorf("%s: title or service not cleaned: %q / %q", k, rb.Title, rb.Service)
		}
		checkQuoted(t, md)
	}
}

// checkQuoted checks that the hostile service appears in commands only
// in its escaped forms.
func checkQuoted(t *testing.T, md string) {
	t.Helper()
	svc := NewText(hostile, MaxServiceLen)
	if !strings.Contains(md, "{service_name="+svc.LogQL()+"}") {
		t.Error("LogQL does not carry the escaped service")
	}
	if strings.Contains(md, "ServiceName = ") && !strings.Contains(md, "ServiceName = "+svc.SQL()) {
		t.Error("SQL does not carry the escaped service")
	}
	if strings.Contains(md, "kubectl rollout history ") && !strings.Contains(md, "kubectl rollout history "+shQuote("deploy/"+svc.raw())) {
		t.Error("kubectl does not carry the quoted deployment")
	}
}
