// Package patterns turns log messages into templates: a stateless masker
// that runs at ingest, and an online template miner that groups masked
// messages into error signatures.
package patterns

import (
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/faultline/faultline/schema"
)

// Mask replaces the variable parts of msg (numbers, hex ids, ...) with <*>.
// It is stateless and deterministic: the same message gives the same
// template in every process.
func Mask(msg string) string {
	f := strings.Fields(msg)
	for i, tok := range f {
		if strings.ContainsAny(tok, "0123456789") {
			f[i] = "<*>"
		}
	}
	return strings.Join(f, " ")
}

// SignatureOf hashes a template into an opaque signature.
func SignatureOf(service, template string) schema.Signature {
	h := fnv.New64a()
	h.Write([]byte(service))
	h.Write([]byte{0})
	h.Write([]byte(template))
	s := strconv.FormatUint(h.Sum64(), 16)
	return schema.Signature(strings.Repeat("0", 16-len(s)) + s)
}
