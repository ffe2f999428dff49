package chfront

import (
	"regexp"
	"strings"
)

var (
	insertFormat = regexp.MustCompile(`(?is)^\s*(INSERT\s+INTO\s+.*?)(?:\s+SETTINGS\s+(.*?))?\s+FORMAT\s+(\w+)\s*;?\s*$`)
	insertValues = regexp.MustCompile(`(?is)^\s*(INSERT\s+INTO\s+.*?)(?:\s+SETTINGS\s+(.*?))?\s+VALUES\s*$`)
)

// infileInsert rewrites an INSERT whose data travels in the request body
// into one that reads the data from path: chDB runs SQL text as a script,
// so data inlined after the statement stops at the first empty line. A
// SETTINGS clause moves after INFILE, where the grammar wants it.
func infileInsert(sql, path string) (string, error) {
	head, settings, format := "", "", ""
	if m := insertFormat.FindStringSubmatch(sql); m != nil {
		head, settings, format = m[1], m[2], m[3]
	} else if m := insertValues.FindStringSubmatch(sql); m != nil {
		head, settings, format = m[1], m[2], "Values"
	} else {
		return "", newException(codeNotImplemented, "NOT_IMPLEMENTED",
			"the chDB front takes request-body data only for INSERT INTO ... FORMAT <name>")
	}
	var b strings.Builder
	b.WriteString(head)
	b.WriteString(" FROM INFILE ")
	b.WriteString(quote(path))
	if settings != "" {
		b.WriteString(" SETTINGS ")
		b.WriteString(settings)
	}
	b.WriteString(" FORMAT ")
	b.WriteString(format)
	return b.String(), nil
}
