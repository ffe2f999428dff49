package sqlite

import (
	"fmt"
	"net/url"
)

// dsn builds the modernc.org/sqlite data source name for path. Pragmas are
// set per connection through _pragma so that every pooled connection gets
// them. Writers begin their transactions IMMEDIATE; readers are query_only.
func dsn(path string, o Options, read bool) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", o.BusyTimeout.Milliseconds()))
	q.Add("_pragma", fmt.Sprintf("cache_size(-%d)", defaultCacheKiB))
	q.Add("_pragma", fmt.Sprintf("mmap_size(%d)", defaultMmapBytes))
	q.Add("_pragma", "temp_store(MEMORY)")
	if read {
		q.Add("_pragma", "query_only(1)")
	} else {
		q.Add("_pragma", "synchronous("+synchronous(o.Durability)+")")
		q.Add("_pragma", "journal_size_limit(67108864)")
		q.Set("_txlock", "immediate")
	}
	u := url.URL{Scheme: "file", Path: path, RawQuery: q.Encode()}
	return u.String()
}

func synchronous(d Durability) string {
	if d == DurabilityProcess {
		return "NORMAL"
	}
	return "FULL"
}
