package sim

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
)

// WriteCase writes the incident as a case folder in dir (created when
// missing): the input files in the contract's formats and truth.json. The
// package documentation lists the files. The same incident always gives
// byte-identical files.
func (inc *Incident) WriteCase(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot create case folder: %w", err)
	}
	steps := []func(string) error{inc.writeTraces, inc.writeOTLPLogs, inc.writeLoki, inc.writeServiceFiles, inc.writeTruth}
	for _, step := range steps {
		if err := step(dir); err != nil {
			return fmt.Errorf("cannot write case %s: %w", filepath.Base(dir), err)
		}
	}
	return nil
}

func (inc *Incident) writeTruth(dir string) error {
	b, err := json.MarshalIndent(inc.Truth, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "truth.json"), append(b, '\n'), 0o644)
}

// output is one file being written, gzipped when its name ends in .gz.
type output struct {
	f  *os.File
	gz *gzip.Writer
	*bufio.Writer
}

func create(path string) (*output, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	o := &output{f: f}
	var w io.Writer = f
	if filepath.Ext(path) == ".gz" {
		o.gz, _ = gzip.NewWriterLevel(f, gzip.BestSpeed)
		w = o.gz
	}
	o.Writer = bufio.NewWriterSize(w, 256<<10)
	return o, nil
}

// Close flushes and closes every layer, reporting every error.
func (o *output) Close() error {
	errs := []error{o.Flush()}
	if o.gz != nil {
		errs = append(errs, o.gz.Close())
	}
	errs = append(errs, o.f.Close())
	return errors.Join(errs...)
}

// writeLines writes the lines of fn to path, or nothing when fn writes none.
func writeLines(path string, fn func(emit func([]byte) error) error) error {
	var o *output
	err := fn(func(b []byte) error {
		if o == nil {
			var err error
			if o, err = create(path); err != nil {
				return err
			}
		}
		if _, err := o.Write(b); err != nil {
			return err
		}
		return o.WriteByte('\n')
	})
	if o != nil {
		err = errors.Join(err, o.Close())
	}
	return err
}

// sortedKeys returns the keys of m in order, for deterministic output.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// isResourceAttr reports whether an attribute belongs to the resource, not the record.
func isResourceAttr(k string) bool {
	return k == "service.version" || k == "host.name" || k == "k8s.pod.name"
}
