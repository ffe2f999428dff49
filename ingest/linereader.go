package ingest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// lineReader reads newline-terminated lines of at most max bytes; longer
// lines are skipped to their end and reported as too long.
type lineReader struct {
	br  *bufio.Reader
	buf []byte
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 1<<20)}
}

// next returns the next line without its newline. The slice is valid until
// the following call. At the end it returns io.EOF.
func (lr *lineReader) next(max int) (line []byte, tooLong bool, err error) {
	lr.buf = lr.buf[:0]
	for {
		chunk, err := lr.br.ReadSlice('\n')
		if !tooLong {
			if len(lr.buf)+len(chunk) > max+1 { // +1: the newline
				tooLong = true
				lr.buf = lr.buf[:0]
			} else {
				lr.buf = append(lr.buf, chunk...)
			}
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF && (len(lr.buf) > 0 || tooLong):
			return trimNewline(lr.buf), tooLong, nil
		case err != nil:
			return nil, false, err
		}
		return trimNewline(lr.buf), tooLong, nil
	}
}

// sniffBytes is how much of a file CheckText looks at.
const sniffBytes = 1024

// CheckText refuses input that is not text, looking at what br holds of
// its first KiB without consuming it: a NUL byte, or more than a tenth
// invalid UTF-8 or control characters (a few Latin-1 bytes in a log pass).
// It drops a leading UTF-8 byte order mark. Refused input gives an error
// wrapping ErrNotText; any other error is br's. Compressed input must be
// decompressed first. Loader.Load and analyze patterns use it, so that a
// file is text to both or to neither.
func CheckText(br *bufio.Reader) error {
	head, err := br.Peek(sniffBytes)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return err
	}
	if bytes.HasPrefix(head, utf8BOM) {
		br.Discard(len(utf8BOM))
		head = head[len(utf8BOM):]
	}
	if !looksText(head, len(head) < sniffBytes) {
		return fmt.Errorf("%w: it has NUL bytes or is mostly not UTF-8", ErrNotText)
	}
	return nil
}

// looksText reports whether b reads as text; whole says b is all of the
// input (else a rune cut at its end is not counted as invalid).
func looksText(b []byte, whole bool) bool {
	bad := 0
	for i := 0; i < len(b); {
		c := b[i]
		if c == 0 {
			return false
		}
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v' && c != 0x1b {
				bad++
			}
			i++
			continue
		}
		if !whole && !utf8.FullRune(b[i:]) {
			break
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			bad++
		}
		i += n
	}
	return bad*10 <= len(b)
}

func trimNewline(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b
}
