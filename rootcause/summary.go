package rootcause

import "slices"

// summarize gives every service of the window its error timeline and its
// role: the top candidate is the origin, services failing in its traces
// the cascade, the rest healthy.
func summarize(w *period, cands []Candidate, tv *traceVotes, buckets int) []ServiceSummary {
	origin := ""
	if len(cands) > 0 {
		origin = cands[0].Service
	}
	bucketSec := max(int(w.to.Sub(w.from).Seconds())/buckets, 1)
	out := make([]ServiceSummary, 0, len(w.services))
	for _, name := range sortedKeys(w.services) {
		sp := w.services[name]
		s := ServiceSummary{Service: name, Records: sp.records, Errors: sp.errors,
			Onset: sp.firstErr, Buckets: sp.buckets, BucketSec: bucketSec, Role: "healthy"}
		switch {
		case name == origin:
			s.Role = "origin"
		case sp.errors > 0 && tv.services[name] != nil && tv.services[name].cascade > 0:
			s.Role = "cascade"
		}
		if s.Buckets == nil && sp.errors == 0 {
			s.Buckets = make([]int, buckets)
		}
		out = append(out, s)
	}
	slices.SortStableFunc(out, func(a, b ServiceSummary) int { return RoleRank(a.Role) - RoleRank(b.Role) })
	return out
}

// RoleRank orders a service summary's roles as they are shown: origin,
// then cascade, then the rest.
func RoleRank(r string) int {
	switch r {
	case "origin":
		return 0
	case "cascade":
		return 1
	}
	return 2
}
