package rootcause

import (
	"regexp"
	"strings"
	"time"

	"github.com/faultline/faultline/schema"
)

// What version of its service a record tells of (read by the deploy and
// deploy_effect rules).
//
// A rollout shows in three ways, and a service need not report its
// version to be seen deployed:
//
//   - the record's service.version attribute;
//   - a Kubernetes pod name, NAME-HASH-SUFFIX: a Deployment's pods carry the
//     hash of the pod template they were made from, so a hash the
//     baseline never saw is a new template, rolled out (a pod restarted or
//     rescheduled keeps its hash);
//   - a line that says the service started and names its version
//     ("starting X version 2.4.0", "X v1.15.0 started").
//
// Versions of the first and third kind share a name space ("v" dropped), so
// a startup line naming the version the baseline's attributes reported
// tells nothing new.

// versionSeen is one version of a service as a period saw it.
type versionSeen struct {
	first time.Time
	// starts counts the startup lines that named it: a version that
	// started over and over is a restart loop, not a rollout.
	starts int
	pod    bool   // a pod template, not a version number
	name   string // as first written ("v1.5.0")
}

// restartLoop is how many startup lines of one version make a restart
// loop rather than a rollout (every replica starts once in a rollout;
// a few replicas, a few lines).
const restartLoop = 6

// addVersions notes the versions record r tells of.
func (sp *serviceProfile) addVersions(r *schema.Record) {
	if v := r.Attrs[schema.AttrServiceVersion]; v != "" {
		sp.noteVersion(v, r.Time, false, false)
	}
	if h := schema.PodTemplate(r.Attrs[schema.AttrPod]); h != "" {
		// Keyed by the hash alone (no dots, unlike a version number), so
		// that the records of a known template allocate nothing.
		if vs := sp.versions[h]; vs != nil && vs.pod {
			if r.Time.Before(vs.first) {
				vs.first = r.Time
			}
		} else {
			sp.versions[h] = &versionSeen{first: r.Time, pod: true, name: "pod template " + h}
		}
	}
	if r.Type == schema.TypeLog && r.Severity < schema.SeverityError {
		if v := startedVersion(r.Body); v != "" {
			sp.noteVersion(v, r.Time, false, true)
		}
	}
}

func (sp *serviceProfile) noteVersion(name string, at time.Time, pod, start bool) {
	v := normVersion(name)
	vs := sp.versions[v]
	if vs == nil {
		vs = &versionSeen{first: at, pod: pod, name: strings.Clone(name)}
		sp.versions[strings.Clone(v)] = vs
	} else if at.Before(vs.first) {
		vs.first = at
	}
	if start {
		vs.starts++
	}
}

// normVersion drops a leading "v" from a version number.
func normVersion(v string) string {
	if len(v) > 1 && (v[0] == 'v' || v[0] == 'V') && v[1] >= '0' && v[1] <= '9' {
		return v[1:]
	}
	return v
}

var (
	startWords = regexp.MustCompile(`(?i)\b(?:start(?:ed|ing)?|boot(?:ed|ing)|launch(?:ed|ing)|initiali[sz](?:ed|ing)|listening|ready to serve|up and running)\b`)
	// versionWord is a version number after a word that says it is one,
	// written with a "v", or after a package name's "@": never an address
	// or a decimal.
	versionWord = regexp.MustCompile(`(?i)(?:\b(?:version|release|build)\b[\s:=]*v?|\bv|\w@)(\d+\.\d+(?:\.\d+)?(?:[-+][0-9A-Za-z][0-9A-Za-z.]*)?)\b`)
)

// startedVersion is the version a line saying its service started names,
// or "". Lines that cannot be startup lines are passed over before any
// regular expression runs.
func startedVersion(body string) string {
	if len(body) > 300 || !strings.ContainsAny(body, ".") || !maybeStartup(body) {
		return ""
	}
	if !startWords.MatchString(body) {
		return ""
	}
	m := versionWord.FindStringSubmatch(body)
	if m == nil {
		return ""
	}
	return m[1]
}

// maybeStartup is a cheap test that body may hold a startup word.
func maybeStartup(body string) bool {
	for _, w := range [...]string{"tart", "TART", "oot", "OOT", "aunch", "AUNCH", "nitiali", "NITIALI", "istening", "ISTENING", "eady", "EADY", "unning"} {
		if strings.Contains(body, w) {
			return true
		}
	}
	return false
}
