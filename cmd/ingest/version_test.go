package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/faultline/faultline/internal/cli"
)

// TestVersion: ingest --version prints its version on stdout, exit 0.
func TestVersion(t *testing.T) {
	var out, errs bytes.Buffer
	code := run(context.Background(), []string{"--version"}, strings.NewReader(""), &out, &errs)
	if code != cli.ExitOK || out.String() != "ingest "+cli.Version()+"\n" || errs.Len() != 0 {
		t.Errorf("ingest --version: exit %d, stdout %q, stderr %q", code, out.String(), errs.String())
	}
}
