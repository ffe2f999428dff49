package ingest

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/golang/snappy"
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
			return nil, fmt.Errorf("cannot read gzip body: %w: %v", ErrBadEncoding, err)
		}
		defer zr.Close()
		in = zr
	default:
		return nil, fmt.Errorf("cannot read body with encoding %q: %w", truncate(enc, 40), ErrBadEncoding)
	}
	b, err := io.ReadAll(io.LimitReader(in, max+1))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, ErrTooLarge
		}
		if errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("cannot read body: %w: %v", ErrBadEncoding, err)
		}
		return nil, fmt.Errorf("cannot read body: %w", err)
	}
	if int64(len(b)) > max {
		return nil, ErrTooLarge
	}
	return b, nil
}

// unsnappy decodes a snappy block-compressed body, refusing one whose
// decoded length is over max before allocating it.
func unsnappy(b []byte, max int64) ([]byte, error) {
	n, err := snappy.DecodedLen(b)
	if err != nil {
		return nil, fmt.Errorf("cannot read snappy body: %w: %v", ErrBadEncoding, err)
	}
	if int64(n) > max {
		return nil, ErrTooLarge
	}
	out, err := snappy.Decode(nil, b)
	if err != nil {
		return nil, fmt.Errorf("cannot read snappy body: %w: %v", ErrBadEncoding, err)
	}
	return out, nil
}

// mediaType is the Content-Type without parameters, lowercase.
func mediaType(r *http.Request) string {
	ct, _, _ := strings.Cut(r.Header.Get("Content-Type"), ";")
	return strings.ToLower(strings.TrimSpace(ct))
}
