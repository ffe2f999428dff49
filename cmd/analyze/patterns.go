package main

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/faultline/faultline/ingest"
	"github.com/faultline/faultline/internal/cli"
	"github.com/faultline/faultline/patterns"
)

// patternsMaxLine is the longest line kept whole; the rest of a longer
// line is dropped (the template of its start is enough).
const patternsMaxLine = 64 << 10

// patternsDoc is the `analyze patterns --json` document.
type patternsDoc struct {
	Templates []patterns.Template `json:"templates"`
	// Lines holds the template id of each input line, in input order; ""
	// for a blank line.
	Lines []string `json:"lines"`
}

// errPatternsInput marks input that could not be read: exit code 2.
var errPatternsInput = errors.New("cannot read")

func runPatterns(ctx context.Context, e *env, args []string) int {
	fs := flag.NewFlagSet("patterns", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	asJSON := fs.Bool("json", false, "print one JSON document")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(e.Stderr, "usage: analyze patterns [--json] FILE...  (- is stdin; .gz is read as gzip)")
			return exitOK
		}
		fmt.Fprintf(e.Stderr, "analyze patterns: %v; usage: analyze patterns [--json] FILE... (- for stdin).\n", err)
		return exitUsage
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(e.Stderr, "analyze patterns: no input; give one or more log files, or - for stdin.")
		return exitUsage
	}
	m := patterns.NewMiner(patterns.Config{})
	var ids []string
	for _, name := range fs.Args() {
		var err error
		ids, err = patternsAddFile(ctx, e, name, m, ids)
		if err != nil {
			fmt.Fprintf(e.Stderr, "analyze patterns: %v.\n", err)
			if errors.Is(err, errPatternsInput) {
				return exitUsage
			}
			return exitFail
		}
	}
	return patternsPrint(e.Stdout, m, ids, *asJSON)
}

// patternsAddFile adds every line of one file ("-" is stdin, gzip is
// detected by its magic bytes) to m and appends the ids to ids. A file
// that is not text is refused as ingest load refuses it.
func patternsAddFile(ctx context.Context, e *env, name string, m *patterns.Miner, ids []string) ([]string, error) {
	var r io.Reader = e.Stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return ids, fmt.Errorf("%w %q: %v; check the path and permissions", errPatternsInput, truncate(name, 80), patternsReason(err))
		}
		defer f.Close()
		r = f
	}
	br := bufio.NewReaderSize(r, 64<<10)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return ids, fmt.Errorf("%w %q as gzip: %v; the file looks damaged", errPatternsInput, truncate(name, 80), patternsReason(err))
		}
		defer zr.Close()
		br = bufio.NewReaderSize(zr, 64<<10)
	}
	if err := ingest.CheckText(br); err != nil {
		hint := "the file looks damaged or is not text"
		if errors.Is(err, ingest.ErrNotText) {
			hint = "give a text log file (plain or gzip-compressed)"
		}
		return ids, fmt.Errorf("%w %q: %v; %s", errPatternsInput, truncate(name, 80), patternsReason(err), hint)
	}
	ids, err := patternsAddLines(ctx, br, m, ids)
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		return ids, fmt.Errorf("%w %q: %v; the file looks damaged or is not text", errPatternsInput, truncate(name, 80), patternsReason(err))
	}
	return ids, err
}

// patternsReason is the plain cause of a file error, without the path
// that the caller already names.
func patternsReason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return err.Error()
}

// patternsAddLines reads lines until EOF, stripping each line's header
// before mining it; blank lines get the id "".
func patternsAddLines(ctx context.Context, br *bufio.Reader, m *patterns.Miner, ids []string) ([]string, error) {
	for n := 0; ; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return ids, ctx.Err()
		}
		line, err := patternsReadLine(br)
		if err == io.EOF {
			return ids, nil
		}
		if err != nil {
			return ids, err
		}
		id := ""
		if msg := patterns.StripHeader(line); msg != "" {
			id = m.Add(msg)
		}
		ids = append(ids, id)
	}
}

// patternsReadLine returns the next line without its line ending, cut at
// patternsMaxLine; io.EOF when there is none.
func patternsReadLine(br *bufio.Reader) (string, error) {
	var buf []byte
	for {
		chunk, isPrefix, err := br.ReadLine()
		if err != nil {
			if err == io.EOF && buf != nil {
				return string(buf), nil
			}
			return "", err
		}
		if len(buf) < patternsMaxLine {
			buf = append(buf, chunk[:min(len(chunk), patternsMaxLine-len(buf))]...)
		}
		if buf == nil {
			buf = []byte{}
		}
		if !isPrefix {
			return string(buf), nil
		}
	}
}

// patternsPrint writes the templates, most frequent first: the JSON
// document, or one "count  id  template" line each.
func patternsPrint(w io.Writer, m *patterns.Miner, ids []string, asJSON bool) int {
	doc := patternsDoc{Templates: m.Templates(), Lines: make([]string, len(ids))}
	for i, id := range ids {
		if t, ok := m.Lookup(id); ok {
			doc.Lines[i] = t.ID
		}
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(doc); err != nil {
			return exitFail
		}
		return exitOK
	}
	// Templates are log text: printed terminal-safe (no raw ESC or BEL).
	bw := bufio.NewWriter(w)
	for _, t := range doc.Templates {
		fmt.Fprintf(bw, "%8d  %s  %s\n", t.Count, t.ID, cli.TerminalSafe(t.Template))
	}
	if err := bw.Flush(); err != nil {
		return exitFail
	}
	return exitOK
}
