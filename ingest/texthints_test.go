package ingest

import (
	"bufio"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// detectBefore is TextMatcher.detect as it was before hints were found in
// one pass: every pattern's hints searched for in the line made lower
// case, the pattern run from a little before the first.
func detectBefore(line string, d *detected) {
	var lower string
	for _, b := range builtinPatterns() {
		p := compilePattern(regexp.MustCompile(b.re), nil)
		text := line
		if len(b.hints) > 0 {
			if lower == "" {
				lower = strings.ToLower(line)
			}
			first := -1
			for _, x := range b.hints {
				if i := strings.Index(lower, x); i >= 0 && (first < 0 || i < first) {
					first = i
				}
			}
			if first < 0 {
				continue
			}
			if len(lower) == len(line) {
				text = line[max(0, first-24):]
			}
		}
		p.fill(p.re.FindStringSubmatch(text), d)
	}
	if !d.has[fieldLevel] {
		if w := bareLevelBefore(line); w != "" {
			d.setIfAbsent(fieldLevel, "level", w)
		}
	}
}

var textHintCases = []string{
	"", "plain words only", "TraceID: 4bf92f3577b34da6a3ce929d0e0e4736 SpanID: 00f067aa0ba902b7 ERROR boom",
	"[trace=4bf92f3577b34da6a3ce929d0e0e4736] x", "stacktrace=4bf92f3577b34da6a3ce929d0e0e4736 my_trace=4bf92f3577b34da6a3ce929d0e0e4736",
	"DD.TRACE_ID=12345 dd.span_id=678", "traceparent 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01 WARN",
	"[orders,4bf92f3577b34da6a3ce929d0e0e4736,00f067aa0ba902b7,true] INFO ok", "Level=Error Service=orders App=x",
	"SERVİCE=orders sEvErİty=error", "ſervice=orders ſpan_id=00f067aa0ba902b7", "\u212aLVIN trace_id=4bf92f3577b34da6a3ce929d0e0e4736",
	"ÉÉÉÉÉÉÉÉÉÉÉÉÉÉÉÉ trace_id=4bf92f3577b34da6a3ce929d0e0e4736", "éééééééééééé span_id=00f067aa0ba902b7 parent_id=00f067aa0ba902b8",
	"\xff\xfe trace_id=4bf92f3577b34da6a3ce929d0e0e4736 \xff", "ẞẞẞẞ service=x level=warn",
	strings.Repeat("x", 300) + " trace_id=4bf92f3577b34da6a3ce929d0e0e4736", "x-b3-traceid: 4bf92f3577b34da6a3ce929d0e0e4736",
	"otelTraceID=4bf92f3577b34da6a3ce929d0e0e4736 otelSpanID=00f067aa0ba902b7 resource.service.name=cart",
}

// TestTextHintsUnchanged: a line gives the fields it gave before hints were
// found in one pass, on the text logs of testdata and lines made to probe
// case, Unicode and offsets.
func TestTextHintsUnchanged(t *testing.T) {
	m, err := NewTextMatcher(nil)
	if err != nil {
		t.Fatal(err)
	}
	lines := append([]string{}, textHintCases...)
	files, _ := filepath.Glob("testdata/text/*")
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
		fh.Close()
	}
	lines = append(lines, strings.Split(string(benchText(200)), "\n")...)
	for i := range 200 {
		_, _, _, _, msg, _ := benchEvent(i)
		lines = append(lines, msg)
	}
	if len(lines) < 400 {
		t.Fatalf("only %d lines", len(lines))
	}
	found := 0
	for _, l := range lines {
		var got, want detected
		m.detect(l, &got)
		detectBefore(l, &want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: got %+v, was %+v", l, got, want)
		}
		if got.has[fieldTrace] || got.has[fieldService] {
			found++
		}
	}
	if found < 10 {
		t.Errorf("ids or services found in only %d lines: the cases probe nothing", found)
	}
}

func FuzzTextHints(f *testing.F) {
	for _, c := range textHintCases {
		f.Add(c)
	}
	m, err := NewTextMatcher(nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var got, want detected
		m.detect(s, &got)
		detectBefore(s, &want)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: got %+v, was %+v", s, got, want)
		}
	})
}

func FuzzTrimLevelPunct(f *testing.F) {
	for _, c := range []string{"", "[ERROR]", "--", "<WARN>:", "|E|", "x", "[\xff]", "ÉRROR:"} {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := trimLevelPunct(s), strings.Trim(s, "[]()<>:|,;-"); got != want {
			t.Fatalf("trimLevelPunct(%q) = %q, want %q", s, got, want)
		}
	})
}
