package web

import (
	"sync"
	"time"

	"github.com/faultline/faultline/rootcause"
)

// maxCachedReports bounds the incident cache.
const maxCachedReports = 32

// reportCache keeps incident reports for a few seconds, so that the live
// page's JSON poll and the page refresh that may follow it, and several
// people watching the same incident, share one analysis. Cached reports
// are shared and must not be modified.
type reportCache struct {
	ttl time.Duration
	now func() time.Time

	mu      sync.Mutex
	entries map[IncidentQuery]cachedReport
}

type cachedReport struct {
	rep     *rootcause.Report
	expires time.Time
}

func newReportCache(ttl time.Duration, now func() time.Time) *reportCache {
	return &reportCache{ttl: ttl, now: now, entries: map[IncidentQuery]cachedReport{}}
}

// get returns the cached report of q, if fresh.
func (c *reportCache) get(q IncidentQuery) (*rootcause.Report, bool) {
	if c.ttl <= 0 {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[q]
	if !ok || c.now().After(e.expires) {
		return nil, false
	}
	return e.rep, true
}

// put stores rep, dropping expired entries, and the oldest when full.
func (c *reportCache) put(q IncidentQuery, rep *rootcause.Report) {
	if c.ttl <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	var oldest IncidentQuery
	var oldestAt time.Time
	for k, e := range c.entries {
		if now.After(e.expires) {
			delete(c.entries, k)
		} else if oldestAt.IsZero() || e.expires.Before(oldestAt) {
			oldest, oldestAt = k, e.expires
		}
	}
	if len(c.entries) >= maxCachedReports {
		delete(c.entries, oldest)
	}
	c.entries[q] = cachedReport{rep: rep, expires: now.Add(c.ttl)}
}
