package ingest

import (
	"errors"
	"fmt"
	"io"
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
)

// readBody reads a request body, undoing Content-Encoding gzip, and caps it
// at max bytes after decompression.
func readBody(r *http.Request, max int64) ([]byte, error) {
	var in io.Reader = r.Body
	switch enc := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding"))); enc {
	case "", "identity":
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			return nil, errNotGzip(err)
		}
		defer zr.Close()
		in = zr
	default:
		return nil, badInput(ErrBadEncoding, nil, "Content-Encoding %q is not supported; send gzip or identity", truncate(enc, 40))
	}
	b, err := io.ReadAll(io.LimitReader(in, max+1))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, errTooLarge(max)
		}
		var ce flate.CorruptInputError
		if errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) || errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &ce) {
			return nil, errNotGzip(err)
		}
		return nil, fmt.Errorf("cannot read body: %w", err)
	}
	if int64(len(b)) > max {
		return nil, errTooLarge(max)
	}
	return b, nil
}

func errTooLarge(max int64) error {
	return badInput(ErrTooLarge, nil, "the body is over the size limit of %d bytes (after decompression); send smaller batches", max)
}

func errNotGzip(cause error) error {
	return badInput(ErrBadEncoding, cause, "the body is not valid gzip although Content-Encoding says gzip; send it compressed whole, or drop the header")
}

// unsnappy decodes a snappy block-compressed body, refusing one whose
// decoded length is over max before allocating it.
func unsnappy(b []byte, max int64) ([]byte, error) {
	n, err := snappy.DecodedLen(b)
	if err != nil {
		return nil, errNotSnappy(b, err)
	}
	if int64(n) > max {
		return nil, errTooLarge(max)
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
