package rootcause

import (
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
)

func TestStartedVersion(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{"starting checkout version=2.4.0 commit=9f2e1c0 go=go1.22.5", "2.4.0"},
		{"classifier v1.15.0 started", "1.15.0"},
		{"Starting OrderApplication v3.2.1-rc.1 using Java 21.0.4 with PID 1", "3.2.1-rc.1"},
		{"mailer@4.0.2 starting in production mode", "4.0.2"},
		{"Booting release 7.1", "7.1"},
		// Not a version of the service, or not a startup line.
		{"Starting gunicorn 21.2.0", ""},
		{"Server listening at http://0.0.0.0:3000", ""},
		{"Started OrderApplication in 6.123 seconds (process running for 7.004)", ""},
		{"payment v2.0.1 rejected the request: amount 12.50 over limit", ""},
		{"Tomcat started on port 8080 (http) with context path ''", ""},
	} {
		if got := startedVersion(c.line); got != c.want {
			t.Errorf("startedVersion(%q) = %q, want %q", c.line, got, c.want)
		}
	}
}

func TestPodTemplate(t *testing.T) {
	for _, c := range []struct{ pod, want string }{
		{"ts-order-service-69876c9868-ssxsf", "69876c9868"},
		{"adservice-5f6585d649-fnmft", "5f6585d649"},
		{"checkout-7d9f8b6c5-x2k4p", "7d9f8b6c5"},
		{"redis-master-0", ""},            // a StatefulSet's pod: no template hash
		{"order-service-abcde", ""},       // a word, not a hash
		{"checkout-api-server-x2k4p", ""}, // no digit in what would be the hash
		{"checkout-7d9f8b6c5-x2k4", ""},   // the suffix is five characters
		{"checkout-7D9F8B6C5-x2k4p", ""},  // hashes are lower case
		{"", ""},
	} {
		if got := schema.PodTemplate(c.pod); got != c.want {
			t.Errorf("PodTemplate(%q) = %q, want %q", c.pod, got, c.want)
		}
	}
}

// TestDeployFromPodTemplate: a service whose pods come from a template the
// baseline's pods were not made from has been rolled out, though it
// reports no version; a pod restarted on the same template is no deploy.
func TestDeployFromPodTemplate(t *testing.T) {
	t0 := time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC)
	rec := func(at time.Time, pod string) *schema.Record {
		return &schema.Record{Time: at, Type: schema.TypeLog, Service: "catalog", Severity: schema.SeverityInfo,
			Body: "listed", Attrs: map[string]string{schema.AttrPod: pod}}
	}
	base, win := newPeriod(t0, t0.Add(10*time.Minute)), newPeriod(t0.Add(10*time.Minute), t0.Add(20*time.Minute))
	base.add(rec(t0.Add(time.Minute), "catalog-5f6585d649-fnmft"), 0)
	win.add(rec(t0.Add(11*time.Minute), "catalog-5f6585d649-q8z2x"), 0) // restarted, same template
	b, w := base.services["catalog"], win.services["catalog"]
	for v, seen := range w.versions {
		if _, ok := b.newVersion(v, seen); ok {
			t.Errorf("a pod restarted on the baseline's template is taken for a deploy (%s)", v)
		}
	}
	win.add(rec(t0.Add(12*time.Minute), "catalog-7d9f8b6c5-x2k4p"), 0)
	name, ok := b.newVersion("7d9f8b6c5", w.versions["7d9f8b6c5"])
	if !ok || name != "pod template 7d9f8b6c5" {
		t.Errorf("a new pod template: newVersion = %q, %v; want it named and new", name, ok)
	}
	if got := b.ranVersions(true); got != "the baseline's pods ran template 5f6585d649" {
		t.Errorf("ranVersions = %q", got)
	}
}

// TestRestartLoopIsNoDeploy: a version the window's lines start over and
// over, that the baseline never told, is a restart loop, not a rollout.
func TestRestartLoopIsNoDeploy(t *testing.T) {
	t0 := time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC)
	base, win := newPeriod(t0, t0.Add(10*time.Minute)), newPeriod(t0.Add(10*time.Minute), t0.Add(20*time.Minute))
	base.add(&schema.Record{Time: t0, Type: schema.TypeLog, Service: "worker", Severity: schema.SeverityInfo, Body: "job done"}, 0)
	for i := range restartLoop {
		win.add(&schema.Record{Time: t0.Add(10*time.Minute + time.Duration(i)*30*time.Second), Type: schema.TypeLog,
			Service: "worker", Severity: schema.SeverityInfo, Body: "worker v2.0.0 started"}, 0)
		_, ok := base.services["worker"].newVersion("2.0.0", win.services["worker"].versions["2.0.0"])
		if want := i+1 < restartLoop; ok != want {
			t.Errorf("after %d startup lines: new version %v, want %v", i+1, ok, want)
		}
	}
}
