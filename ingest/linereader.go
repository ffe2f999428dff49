package ingest

import (
	"bufio"
	"errors"
	"io"
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

func trimNewline(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b
}
