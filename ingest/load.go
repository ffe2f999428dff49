package ingest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/faultline/faultline/schema"
	"github.com/klauspost/compress/gzip"
)

// ErrSink wraps an error of the store a Loader or Server writes to.
var ErrSink = errors.New("store write failed")

// ErrNotText is returned by Loader.Load (and CheckText) for a file that is
// not text: NUL bytes or mostly invalid UTF-8 in its first KiB (after gunzip).
var ErrNotText = errors.New("not a text file")

// Loader streams files into a Sink: format detected per file, gzip by its
// magic bytes, records written in batches of Limits.MaxRecordsPerBatch.
// One batch is written while the next is decoded, so memory is bounded by
// two batches and one line.
type Loader struct {
	dec  *Decoder
	sink Sink
	log  *slog.Logger
}

// NewLoader returns a loader decoding with dec into sink; a nil logger discards.
func NewLoader(dec *Decoder, sink Sink, log *slog.Logger) *Loader {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Loader{dec: dec, sink: sink, log: log}
}

// LoadOptions are per-file options of Loader.LoadWith.
type LoadOptions struct {
	// Service names the service of the records of a plain-text or
	// JSON-lines file that name none themselves (no field, no pattern).
	// "" means the file's base name without extensions, as log shippers
	// label a stream by its file (see ServiceFromFileName); standard input
	// ("-") then gets none. OTLP and Loki files carry their own.
	Service string
}

// Load reads one file and writes its records, with the default options.
// An error wrapping ErrSink means the store failed (records of earlier
// batches are stored); any other error means the input could not be read.
func (l *Loader) Load(ctx context.Context, name string, r io.Reader) (Stats, Format, error) {
	return l.LoadWith(ctx, name, r, LoadOptions{})
}

// LoadWith is Load with options. name is the file's path ("-" for standard
// input): it is used in messages and for the default service.
func (l *Loader) LoadWith(ctx context.Context, name string, r io.Reader, opt LoadOptions) (Stats, Format, error) {
	service := opt.Service
	if service == "" {
		service = ServiceFromFileName(name)
	}
	br := bufio.NewReaderSize(r, 64<<10)
	in, err := maybeGunzip(br)
	if err != nil {
		return Stats{}, "", fmt.Errorf("cannot read %q: %w", truncate(name, 200), err)
	}
	lr := newLineReader(in)
	if err := CheckText(lr.br); err != nil {
		if errors.Is(err, ErrNotText) {
			err = fmt.Errorf("%w; give log lines, JSON lines, OTLP/JSON or Loki push JSON (plain or gzip-compressed)", err)
		}
		return Stats{}, "", fmt.Errorf("cannot load %q: %w", truncate(name, 200), err)
	}
	lim := l.dec.Limits()
	b := NewBatch(lim)
	w := &asyncWriter{sink: l.sink}
	format := Format("")
	for {
		max := lim.MaxLineBytes
		if format == "" || format.isBodyFormat() {
			max = int(min(lim.MaxBodyBytes, 1<<31-1))
		}
		line, tooLong, err := lr.next(max)
		if err == io.EOF {
			break
		}
		if err != nil {
			return b.Stats, format, errors.Join(fmt.Errorf("cannot read %q: %w", truncate(name, 200), err), w.wait())
		}
		if tooLong {
			b.Reject(ReasonLineTooLong)
			continue
		}
		if format == "" {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			format = DetectFormat(line)
			l.log.Debug("format detected", "file", name, "format", format)
		}
		l.dec.decodeLine(format, line, service, b)
		if b.Len() >= lim.MaxRecordsPerBatch {
			if err := w.start(ctx, b); err != nil {
				return b.Stats, format, err
			}
		}
	}
	if err := w.start(ctx, b); err != nil {
		return b.Stats, format, err
	}
	return b.Stats, format, w.wait()
}

// asyncWriter writes one batch in the background while the next is
// decoded. It owns the records of the batch in flight.
type asyncWriter struct {
	sink  Sink
	done  chan error
	spare []schema.Record
}

// start waits for the write in flight, then hands b's records to a new
// write and gives b the spare slice to fill.
func (w *asyncWriter) start(ctx context.Context, b *Batch) error {
	if err := w.wait(); err != nil {
		return err
	}
	if b.Len() == 0 {
		return nil
	}
	recs := b.Records
	b.Records = w.spare[:0]
	w.spare = recs
	w.done = make(chan error, 1)
	go func() {
		if err := w.sink.WriteBatch(ctx, recs); err != nil {
			w.done <- fmt.Errorf("cannot write %d records: %w: %w", len(recs), ErrSink, err)
			return
		}
		w.done <- nil
	}()
	return nil
}

// wait returns the result of the write in flight (nil when none).
func (w *asyncWriter) wait() error {
	if w.done == nil {
		return nil
	}
	err := <-w.done
	w.done = nil
	clear(w.spare)
	return err
}

// ServiceFromFileName is the service a log file's name implies: its base
// name without extensions (payment-service.log.gz → payment-service).
// Known log extensions (.gz .log .jsonl .ndjson .json .txt .out .err) and
// rotation suffixes (.1, .2024-01-15) are removed; standard input ("-")
// and names that leave nothing imply none.
func ServiceFromFileName(name string) string {
	if name == "" || name == "-" {
		return ""
	}
	base := filepath.Base(name)
	for {
		i := strings.LastIndexByte(base, '.')
		if i < 0 {
			break
		}
		ext := strings.ToLower(base[i+1:])
		switch ext {
		case "gz", "log", "jsonl", "ndjson", "json", "txt", "out", "err", "text", "logs":
		default:
			if strings.Trim(ext, "0123456789-_") != "" || ext == "" {
				return strings.TrimSpace(base)
			}
		}
		base = base[:i]
	}
	if base == "." || base == string(filepath.Separator) {
		return ""
	}
	return strings.TrimSpace(base)
}

// maybeGunzip returns a gzip reader when br starts with the gzip magic bytes.
func maybeGunzip(br *bufio.Reader) (io.Reader, error) {
	magic, err := br.Peek(2)
	if err != nil || magic[0] != 0x1f || magic[1] != 0x8b {
		return br, nil // short or empty input is read as it is
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, err
	}
	return zr, nil
}
