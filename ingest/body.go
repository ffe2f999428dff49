package ingest

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"

	"github.com/golang/snappy"
	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
)

// Errors of reading a request body; statusOf maps them to HTTP codes.
var (
	ErrTooLarge        = errors.New("body over the size limit")
	ErrBadEncoding     = errors.New("unsupported or corrupt content encoding")
	ErrUnsupportedType = errors.New("unsupported content type")
	ErrSlowBody        = errors.New("body not received in time")
)

// readBody reads a request body, undoing Content-Encoding gzip, and caps it
// at max bytes after decompression. Its buffer is taken from l before it
// is allocated (errBytesBusy when the budget is spent); a body that does
// not arrive before the connection's read deadline is ErrSlowBody.
func readBody(r *http.Request, max int64, l *lease) ([]byte, error) {
	var in io.Reader = r.Body
	hint := r.ContentLength
	switch enc := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding"))); enc {
	case "", "identity":
		if hint > max {
			return nil, errTooLarge(max)
		}
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			if e := bodyError(err, max, true); errors.Is(e, ErrSlowBody) {
				return nil, e
			}
			return nil, errNotGzip(err)
		}
		defer zr.Close()
		in, hint = zr, -1
	default:
		return nil, badInput(ErrBadEncoding, nil, "Content-Encoding %q is not supported; send gzip or identity", truncate(enc, 40))
	}
	b, err := readCapped(in, max, hint, l)
	if err != nil {
		return nil, bodyError(err, max, in != r.Body)
	}
	if int64(len(b)) > max {
		return nil, errTooLarge(max)
	}
	return b, nil
}

// readCapped reads in whole, or its first max+1 bytes, into one buffer
// grown by doubling as data arrives (up to hint+1 when the length is
// announced, -1 when not); every buffer's capacity is taken from l before
// it is allocated and the one it replaces given back, so that a body holds
// about what it has sent, not what it announces.
func readCapped(in io.Reader, max, hint int64, l *lease) ([]byte, error) {
	limit := max + 1
	if hint >= 0 {
		limit = min(hint+1, limit) // room to see EOF without growing
	}
	size := min(int64(32<<10), limit)
	if err := l.grow(size); err != nil {
		return nil, err
	}
	buf := make([]byte, 0, size)
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) > max {
				return buf, nil
			}
			n := min(2*int64(cap(buf)), max+1)
			if int64(cap(buf)) < limit {
				n = min(n, limit)
			}
			if err := l.grow(n); err != nil {
				return nil, err
			}
			nb := make([]byte, len(buf), n)
			copy(nb, buf)
			l.shrink(int64(cap(buf)))
			buf = nb
		}
		k, err := in.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+k]
		switch {
		case errors.Is(err, io.EOF):
			return buf, nil
		case err != nil:
			return nil, err
		}
	}
}

// bodyError names an error of reading a body; gzipped tells whether it
// came through the gzip reader.
func bodyError(err error, max int64, gzipped bool) error {
	var mbe *http.MaxBytesError
	var ne net.Error
	var ce flate.CorruptInputError
	switch {
	case errors.Is(err, errBytesBusy):
		return err
	case errors.As(err, &mbe):
		return errTooLarge(max)
	case errors.As(err, &ne) && ne.Timeout():
		return badInput(ErrSlowBody, err, "the body did not arrive in time; send it faster or in smaller batches")
	case gzipped && (errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) || errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &ce)):
		return errNotGzip(err)
	}
	return fmt.Errorf("cannot read body: %w", err)
}

func errTooLarge(max int64) error {
	return badInput(ErrTooLarge, nil, "the body is over the size limit of %d bytes (after decompression); send smaller batches", max)
}

func errNotGzip(cause error) error {
	return badInput(ErrBadEncoding, cause, "the body is not valid gzip although Content-Encoding says gzip; send it compressed whole, or drop the header")
}

// maxSnappyRatio bounds how much a snappy block can expand: no element
// of the format yields more than 64 bytes per 2 bytes of input, so a
// decoded length over it is a corrupt header, not a big body.
const maxSnappyRatio = 32

// unsnappy decodes a snappy block-compressed body, refusing one whose
// decoded length is over max before allocating it (the allocation is taken
// from l). A decoded length the input cannot possibly expand to is
// garbage (400), not a body over the limit (413).
func unsnappy(b []byte, max int64, l *lease) ([]byte, error) {
	n, err := snappy.DecodedLen(b)
	if err != nil {
		return nil, errNotSnappy(b, err)
	}
	if int64(n) > maxSnappyRatio*int64(len(b))+64 {
		return nil, errNotSnappy(b, fmt.Errorf("snappy header claims %d bytes from %d", n, len(b)))
	}
	if int64(n) > max {
		return nil, errTooLarge(max)
	}
	if err := l.grow(int64(n)); err != nil {
		return nil, err
	}
	out, err := snappy.Decode(nil, b)
	if err != nil {
		return nil, errNotSnappy(b, err)
	}
	return out, nil
}

// errNotSnappy answers a Loki protobuf push whose body is not snappy, with
// a hint when it is plainly something else.
func errNotSnappy(b []byte, cause error) error {
	switch {
	case isGzip(b):
		return errGzipHint(cause)
	case looksJSON(b):
		return badInput(ErrBadEncoding, cause, "the body looks like JSON; set Content-Type: application/json")
	}
	return badInput(ErrBadEncoding, cause, "the body is not snappy-compressed protobuf, as a Loki push of type application/x-protobuf must be")
}

// mediaType is the Content-Type without parameters, lowercase.
func mediaType(r *http.Request) string {
	ct, _, _ := strings.Cut(r.Header.Get("Content-Type"), ";")
	return strings.ToLower(strings.TrimSpace(ct))
}
