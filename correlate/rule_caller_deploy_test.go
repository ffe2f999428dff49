package correlate

import (
	"context"
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
)

// callerDeployStore: orders calls auth, which rejects the request as
// invalid; orders runs v2 in the trace. orders ran v1 until deployAt (ms
// after the test's epoch; 0: it ran v2 all along), auth rejected such
// calls rejectedBefore times in the half hour before it and 20 times
// since, and auth itself ran authVersions in turn (the second from
// deployAt). spanless: auth leaves no span, only its log line, and orders
// logs the 400 it got. logsOnly: the trace has no spans at all and orders
// logs nothing of the refusal; with a bystander, another service of the
// trace was deployed as well.
func callerDeployStore(deployAt, rejectedBefore int, spanless bool, authVersions ...string) func() *windowStore {
	return callerDeployTrace(deployAt, rejectedBefore, spanless, false, false, authVersions...)
}

func callerDeployTrace(deployAt, rejectedBefore int, spanless, logsOnly, bystander bool, authVersions ...string) func() *windowStore {
	return func() *windowStore {
		const failAt = 3_600_000
		rejected := `invalid request to /auth.v1.Auth/Lookup: missing required field "scope"`
		versioned := func(r schema.Record, v string) schema.Record {
			if r.Attrs == nil {
				r.Attrs = map[string]string{}
			}
			r.Attrs[schema.AttrServiceVersion] = v
			return r
		}
		authAt := func(ms int) string {
			if len(authVersions) > 1 && ms >= deployAt {
				return authVersions[1]
			}
			return authVersions[0]
		}
		gw := span("a1", "", "gateway", "gw-0", failAt-10, 40)
		call := versioned(span("b1", "a1", "orders", "orders-7", failAt-8, 30), "v2")
		call.Status = schema.StatusError
		call.Attrs[schema.AttrPeerService] = "auth"
		srv := versioned(span("c1", "b1", "auth", "auth-0", failAt-6, 5), authAt(failAt))
		srv.Status = schema.StatusError
		st := &windowStore{}
		switch {
		case logsOnly:
			st.recs = append(st.recs, inTrace(string(tid),
				versioned(logAt("", "gateway", failAt-10, schema.SeverityInfo, "GET /checkout"), "g3"),
				versioned(logAt("", "orders", failAt-8, schema.SeverityInfo, "placing order"), "v2"),
				versioned(logAt("", "auth", failAt-3, schema.SeverityError, rejected), authAt(failAt)),
				versioned(logAt("", "orders", failAt+20, schema.SeverityInfo, "order placed without a scope check"), "v2"))...)
			// gateway's records of the hour: g3 all along, or g2 until
			// deployAt when it is a bystander deployed too.
			for ms := failAt - 3_500_000; ms < failAt-60_000; ms += 30_000 {
				v := "g3"
				if bystander && ms < deployAt {
					v = "g2"
				}
				r := versioned(logAt("", "gateway", ms, schema.SeverityInfo, "GET /"), v)
				r.TraceID = schema.TraceID(fmt.Sprintf("%032x", 20000+ms/30_000))
				st.recs = append(st.recs, r)
			}
		case spanless:
			st.recs = append(st.recs, inTrace(string(tid), gw, call,
				logAt("b1", "orders", failAt+20, schema.SeverityError, "lookup failed: unexpected status 400 Bad Request from auth"),
				versioned(logAt("", "auth", failAt-3, schema.SeverityError, rejected), authAt(failAt)))...)
		default:
			st.recs = append(st.recs, inTrace(string(tid), gw, call, srv,
				versioned(logAt("c1", "auth", failAt-3, schema.SeverityError, rejected), authAt(failAt)))...)
		}
		// orders' records of the hour: v1 before deployAt, v2 after.
		for ms := failAt - 3_500_000; ms < failAt-60_000; ms += 30_000 {
			v := "v2"
			if ms < deployAt {
				v = "v1"
			}
			r := versioned(logAt("", "orders", ms, schema.SeverityInfo, "order placed"), v)
			r.TraceID = schema.TraceID(fmt.Sprintf("%032x", 1000+ms/30_000))
			st.recs = append(st.recs, r)
			a := versioned(logAt("", "auth", ms+5, schema.SeverityInfo, "lookup ok"), authAt(ms))
			a.TraceID = r.TraceID
			st.recs = append(st.recs, a)
		}
		since := max(deployAt, failAt-1_700_000)
		for i := range 20 {
			r := versioned(logAt("", "auth", since+10_000+i*(failAt-since-20_000)/20, schema.SeverityError, rejected), authAt(failAt))
			r.TraceID = schema.TraceID(fmt.Sprintf("%032x", 5000+i))
			st.recs = append(st.recs, r)
		}
		for i := range rejectedBefore {
			r := versioned(logAt("", "auth", since-1_500_000+i*1_400_000/rejectedBefore, schema.SeverityError, rejected), authAt(0))
			r.TraceID = schema.TraceID(fmt.Sprintf("%032x", 9000+i))
			st.recs = append(st.recs, r)
		}
		return st
	}
}

func TestBlameCallerDeploy(t *testing.T) {
	const deployAt = 3_600_000 - 600_000
	for _, c := range []struct {
		name     string
		st       func() *windowStore
		want     string
		wantKind schema.Kind
	}{
		{"rejections began with the caller's new version", callerDeployStore(deployAt, 0, false, "a7"), "orders", schema.KindBadDeploy},
		{"the callee left no span: its caller's failure names it", callerDeployStore(deployAt, 0, true, "a7"), "orders", schema.KindBadDeploy},
		{"the caller ran one version all hour", callerDeployStore(0, 0, false, "a7"), "auth", schema.KindDeterministic},
		{"rejected as often before the new version", callerDeployStore(deployAt, 60, false, "a7"), "auth", schema.KindDeterministic},
		{"the callee was deployed too", callerDeployStore(deployAt, 0, false, "a7", "a8"), "auth", schema.KindDeterministic},
		{"log lines only: the one service of the trace deployed since", callerDeployTrace(deployAt, 0, false, true, false, "a7"), "orders", schema.KindBadDeploy},
		{"log lines only, two services deployed since: neither", callerDeployTrace(deployAt, 0, false, true, true, "a7"), "auth", schema.KindDeterministic},
		{"versions told only by pod names", podVersions(callerDeployStore(deployAt, 0, false, "a7")), "orders", schema.KindBadDeploy},
		{"pod names, the caller's template all hour", podVersions(callerDeployStore(0, 0, false, "a7")), "auth", schema.KindDeterministic},
	} {
		res, err := Analyze(context.Background(), c.st(), tid, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Suspect == nil || res.Suspect.Service != c.want || res.Suspect.Kind != c.wantKind {
			t.Errorf("%s: suspect %+v, want %s (%s)", c.name, res.Suspect, c.want, c.wantKind)
			continue
		}
		if c.want == "orders" && !strings.Contains(res.Suspect.Reason, "runs v2") && !strings.Contains(res.Suspect.Reason, "runs pod template "+podHash("v2")) {
			t.Errorf("%s: the reason does not name the version: %q", c.name, res.Suspect.Reason)
		}
	}
}

// podVersions tells the store's versions only by the template hash in
// the names of the services' pods (NAME-HASH-SUFFIX), as a Deployment's
// rollout does when the service reports no version.
func podVersions(mk func() *windowStore) func() *windowStore {
	return func() *windowStore {
		st := mk()
		for i := range st.recs {
			r := &st.recs[i]
			if v := r.Attrs[schema.AttrServiceVersion]; v != "" {
				delete(r.Attrs, schema.AttrServiceVersion)
				r.Attrs[schema.AttrPod] = r.Service + "-" + podHash(v) + "-x7k2q"
			}
		}
		return st
	}
}

// podHash is a pod template hash standing for version v.
func podHash(v string) string {
	return fmt.Sprintf("%x", sha256.Sum256([]byte(v)))[:10]
}

// TestBlameAnsweringDeploy: orders ran v2 all hour; labeler, which orders
// calls before auth in the same request, was deployed ten minutes ago
// (l2, l1 before), and since then auth rejects orders' calls with the
// label labeler now answers. orders only passes the answer on: the new
// version that answered it is to blame, as a caller's would be. With
// labeler on one version all hour, auth stays the suspect.
func TestBlameAnsweringDeploy(t *testing.T) {
	const deployAt = 3_600_000 - 600_000
	for _, c := range []struct {
		deployAt int
		want     string
		wantKind schema.Kind
	}{
		{deployAt, "labeler", schema.KindBadDeploy},
		{0, "auth", schema.KindDeterministic},
	} {
		res, err := Analyze(context.Background(), answeringDeployStore(c.deployAt), tid, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Suspect == nil || res.Suspect.Service != c.want || res.Suspect.Kind != c.wantKind {
			t.Errorf("labeler deployed at %d: suspect %+v, want %s (%s)", c.deployAt, res.Suspect, c.want, c.wantKind)
			continue
		}
		if c.want == "labeler" && !strings.Contains(res.Suspect.Reason, "runs l2") {
			t.Errorf("the reason does not name the version: %q", res.Suspect.Reason)
		}
	}
}

// answeringDeployStore is the store of TestBlameAnsweringDeploy.
func answeringDeployStore(deployAt int) *windowStore {
	const failAt = 3_600_000
	rejected := `invalid request to /auth.v1.Auth/Lookup: unknown label "refund_now"`
	versioned := func(r schema.Record, v string) schema.Record {
		if r.Attrs == nil {
			r.Attrs = map[string]string{}
		}
		r.Attrs[schema.AttrServiceVersion] = v
		return r
	}
	labelerAt := func(ms int) string {
		if deployAt > 0 && ms >= deployAt {
			return "l2"
		}
		return "l1"
	}
	gw := span("a1", "", "gateway", "gw-0", failAt-30, 60)
	orders := versioned(span("b1", "a1", "orders", "orders-7", failAt-28, 50), "v2")
	orders.Status = schema.StatusError
	label := versioned(span("c0", "b1", "labeler", "labeler-1", failAt-26, 10), labelerAt(failAt))
	call := versioned(span("b2", "b1", "orders", "orders-7", failAt-10, 8), "v2")
	call.Status = schema.StatusError
	call.Attrs[schema.AttrPeerService] = "auth"
	srv := versioned(span("c1", "b2", "auth", "auth-0", failAt-8, 5), "a7")
	srv.Status = schema.StatusError
	st := &windowStore{}
	st.recs = append(st.recs, inTrace(string(tid), gw, orders, label, call, srv,
		versioned(logAt("c1", "auth", failAt-5, schema.SeverityError, rejected), "a7"))...)
	for ms := failAt - 3_500_000; ms < failAt-60_000; ms += 30_000 {
		id := schema.TraceID(fmt.Sprintf("%032x", 1000+ms/30_000))
		for _, r := range []schema.Record{
			versioned(logAt("", "orders", ms, schema.SeverityInfo, "order placed"), "v2"),
			versioned(logAt("", "labeler", ms+2, schema.SeverityInfo, "labelled"), labelerAt(ms)),
			versioned(logAt("", "auth", ms+5, schema.SeverityInfo, "lookup ok"), "a7"),
		} {
			r.TraceID = id
			st.recs = append(st.recs, r)
		}
	}
	// The rejections, from the first request labeler's new version
	// answered (the hourly records are 30 s apart).
	since := max(deployAt, failAt-1_700_000) + 30_000
	for i := range 20 {
		r := versioned(logAt("", "auth", since+10_000+i*(failAt-since-20_000)/20, schema.SeverityError, rejected), "a7")
		r.TraceID = schema.TraceID(fmt.Sprintf("%032x", 5000+i))
		st.recs = append(st.recs, r)
	}
	return st
}

// During a rollout, pods of the old version keep serving after the first
// new one is up, each request writing several lines: the first of a few
// records read at a moment may well be an old pod's. The new version's
// first moment is still found, whenever the failure that asks is.
func TestVersionSinceDuringRollout(t *testing.T) {
	const deployAt = 1_200_000 // 20 min in; one request in three goes to the new pod
	st := &windowStore{}
	for req := range 3_600 { // a request every 500 ms for half an hour, 8 lines each
		v := "v1"
		if ms := req * 500; ms >= deployAt && req%3 == 0 {
			v = "v2"
		}
		for line := range 8 {
			r := logAt("", "orders", req*500+line, schema.SeverityInfo, "step")
			r.Attrs = map[string]string{schema.AttrServiceVersion: v}
			r.TraceID = schema.TraceID(fmt.Sprintf("%032x", 1+req))
			st.recs = append(st.recs, r)
		}
	}
	first := at(deployAt)
	for _, failAt := range []int{1_260_000, 1_500_000, 1_790_000} {
		since, before, err := findVersionSince(context.Background(), st, "orders", "v2", at(failAt))
		if err != nil {
			t.Fatal(err)
		}
		if before != "v1" || since.Before(first) || since.Sub(first) > deploySettle+time.Second {
			t.Errorf("failure at %d ms: v2 since %s (before it %q), want %s (v1)", failAt, since, before, first)
		}
	}
}
