package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
)

// printedCommand finds the analyze commands of a runbook's Markdown: the
// lines of its code blocks and its inline code that start with "analyze"
// and give arguments ("`analyze trace` shows ..." names the command only).
var printedCommand = regexp.MustCompile("(?m)(?:^|`)(analyze [a-z]+ [^`\n]+)")

// shellWords splits a command line as a shell would, for the quoting
// runbookgen.StoreFlag writes (single quotes), and drops a redirection
// ("> file"). A "$" outside single quotes is refused: the test does not
// expand variables.
func shellWords(line string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord, quote := false, rune(0)
	for _, r := range line {
		switch {
		case quote == '\'' && r == '\'', quote == '"' && r == '"':
			quote = 0
		case quote == '\'':
			cur.WriteRune(r)
		case r == '$':
			return nil, fmt.Errorf("a variable in %q", line)
		case quote == '"':
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("an unclosed quote in %q", line)
	}
	if inWord {
		words = append(words, cur.String())
	}
	for i, w := range words {
		if w == ">" {
			return words[:i], nil
		}
	}
	return words, nil
}

// runPrinted runs every analyze command of a runbook as printed, its
// placeholders (generic runbooks) filled with a service, a caller and a
// trace of the store, and returns how many it ran.
func runPrinted(t *testing.T, name, md string, fill *strings.Replacer) int {
	t.Helper()
	n := 0
	for _, m := range printedCommand.FindAllStringSubmatch(md, -1) {
		words, err := shellWords(fill.Replace(m[1]))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		code, _, errs := runCmd(t, words[1:]...)
		if code != exitOK {
			t.Errorf("%s prints %q: exit %d: %s", name, m[1], code, errs)
		}
		n++
	}
	return n
}

// TestRunbookCommandsRunAsPrinted: every analyze command a runbook prints,
// the generic runbook of each kind and an incident's, runs as printed
// from another folder with no $FAULTLINE_STORE, on a store that is not
// the default one (in a folder whose name needs quoting): each names the
// store it was written from. The store's incident began ten minutes ago,
// inside the windows the commands give (--since 15m).
func TestRunbookCommandsRunAsPrinted(t *testing.T) {
	t0 := time.Now().UTC().Add(-10 * time.Minute).Truncate(time.Second)
	src, ids := enrichStoreAt(t, t0)
	dir := filepath.Join(t.TempDir(), "on call")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "enrich.db")
	copyFile(t, src, db)
	t.Setenv("FAULTLINE_STORE", "")
	t.Chdir(t.TempDir())

	fill := strings.NewReplacer("TRACE_ID", ids[0], "SERVICE", "inventory", "CALLER", "checkout",
		" ID ", " "+ids[0]+" ", " ID\n", " "+ids[0]+"\n")
	ran := 0
	for _, k := range schema.Kinds {
		code, md, errs := runCmd(t, "runbook", "--store", db, string(k))
		if code != exitOK {
			t.Fatalf("runbook %s: exit %d: %s", k, code, errs)
		}
		ran += runPrinted(t, "the generic runbook of "+string(k), md+"\n", fill)
	}

	code, out, errs := runCmd(t, "incident", "--store", db, "--json", "--from", t0.Add(-5*time.Minute).Format(time.RFC3339), "--to", t0.Add(5*time.Minute).Format(time.RFC3339))
	if code != exitOK {
		t.Fatalf("incident: exit %d: %s", code, errs)
	}
	rb := regexp.MustCompile(`"url":"/runbooks/([^"]+)"`).FindStringSubmatch(strings.ReplaceAll(out, " ", ""))
	if rb == nil {
		t.Fatalf("the incident links no runbook:\n%s", out)
	}
	code, md, errs := runCmd(t, "runbook", "--store", db, rb[1])
	if code != exitOK {
		t.Fatalf("runbook %s: exit %d: %s", rb[1], code, errs)
	}
	if n := runPrinted(t, "the incident's runbook", md, fill); n < 3 {
		t.Errorf("the incident's runbook printed %d analyze commands, want at least 3:\n%s", n, md)
	}
	if ran < 3*len(schema.Kinds) {
		t.Errorf("the generic runbooks printed %d analyze commands, want at least 3 each", ran)
	}
}

// TestGenericRunbookDefaultStore: with no --store and no $FAULTLINE_STORE,
// a generic runbook names the default store when it is there, and when it
// is not, names none and says which store its commands read.
func TestGenericRunbookDefaultStore(t *testing.T) {
	t.Setenv("FAULTLINE_STORE", "")
	dir := t.TempDir()
	t.Chdir(dir)
	code, md, errs := runCmd(t, "runbook", "timeout")
	if code != exitOK || strings.Contains(md, "--store /") || !strings.Contains(md, "read the store in `$FAULTLINE_STORE`, else `./faultline.db`") {
		t.Errorf("no store here: exit %d, %s; the runbook names a store or does not say which it reads:\n%.600s", code, errs, md)
	}
	if err := os.WriteFile("faultline.db", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	code, md, _ = runCmd(t, "runbook", "timeout")
	if want := "analyze trace --store " + filepath.Join(abs, "faultline.db") + " TRACE_ID"; code != exitOK || !strings.Contains(md, want) {
		t.Errorf("a store here: the runbook lacks %q:\n%.600s", want, md)
	}
}
