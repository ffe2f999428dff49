package ingest

import (
	"unicode/utf8"

	"github.com/faultline/faultline/patterns"
	"github.com/faultline/faultline/schema"
)

// complete enforces the limits on r and fills the derived fields of a log
// record (Template, Signature). It reports whether anything was cut.
func complete(r *schema.Record, lim Limits) (cut bool) {
	var c bool
	r.Service, c = cutString(r.Service, lim.MaxValueBytes)
	cut = cut || c
	r.Name, c = cutString(r.Name, lim.MaxValueBytes)
	cut = cut || c
	r.SeverityText, c = cutString(r.SeverityText, lim.MaxKeyBytes)
	cut = cut || c
	if r.Type == schema.TypeSpan {
		r.Body, c = cutString(r.Body, lim.MaxLineBytes)
		cut = cut || c
	}
	if capAttrs(r, lim) {
		cut = true
	}
	if r.Body != "" && r.Template == "" {
		r.Template = patterns.Mask(r.Body)
		r.Signature = patterns.SignatureOf(r.Service, r.Template)
	}
	return cut
}

// capAttrs drops attributes over the count and key limits and cuts long
// values. Which attributes survive the count limit is unspecified.
func capAttrs(r *schema.Record, lim Limits) (cut bool) {
	if len(r.Attrs) == 0 {
		r.Attrs = nil
		return false
	}
	n := 0
	for k, v := range r.Attrs {
		if len(k) > lim.MaxKeyBytes || k == "" || n >= lim.MaxAttrs {
			delete(r.Attrs, k)
			cut = true
			continue
		}
		n++
		if len(v) > lim.MaxValueBytes {
			r.Attrs[k], _ = cutString(v, lim.MaxValueBytes)
			cut = true
		}
	}
	return cut
}

// cutString cuts s to at most n bytes at a UTF-8 boundary.
func cutString(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i], true
}
