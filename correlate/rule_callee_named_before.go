package correlate

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/faultline/faultline/schema"
)

// ruleCalleeNamedBefore names a suspect the trace gives only by a host's
// label with the name its caller's other lines give the same host.
//
// Condition: the suspect is no service of the trace and was read from a
// line's text ("circuit breaker open, not calling
// us-east-1.aws.instances.internal" makes it "us-east-1"), the text gives
// the host that label begins, and the warnings and errors that line's
// service logged in the breakerLookback before it (to the end of its
// tripQuantum) that mention the same host name their callee by an
// explicit attribute (peer.service, remote.service, peer, rpc.service,
// db.name, messaging.destination.name), all the same one: the retries
// before the breaker opened, written with remote.service=
// instances-aws-us-east-1. The suspect becomes that name, one that occurs
// in the data (the incident analysis resolves such labels against the
// window's names, and the two commands then agree).
//
// Constants: breakerLookback, breakerScan, tripQuantum.
// Test: TestRules/callee_named_before (TestCalleeNamedBefore).
const ruleCalleeNamedBefore = "callee_named_before"

// explicitAttrs are the attributes that name a callee by its name, not by
// its host.
var explicitAttrs = []string{schema.AttrPeerService, "remote.service", "peer", "rpc.service", "db.name",
	"messaging.destination.name"}

func nameCalleeBefore(ctx context.Context, st WindowStore, a *storeAnalysis) {
	s := a.res.Suspect
	if s == nil || s.Service == "" || slices.ContainsFunc(a.recs, func(r schema.Record) bool { return r.Service == s.Service }) {
		return
	}
	for _, f := range a.res.Failures {
		if f.Target != s.Service || !strings.HasPrefix(f.Via, "message") || f.Record < 0 || f.Record >= len(a.recs) {
			continue
		}
		host := hostBeginning(a.recs[f.Record].Body, s.Service)
		if host == "" {
			continue
		}
		at := quantumEnd(f.Time)
		name, err := memoized(a.memo, memoKey(ruleCalleeNamedBefore, f.Service, host, at), func() (string, error) {
			return hostNamed(ctx, st, f.Service, host, at)
		})
		if err != nil {
			a.res.Warnings = append(a.res.Warnings, fmt.Sprintf("cannot read the lines of %s: %v", f.Service, err))
			return
		}
		if name == s.Service {
			return
		}
		if name == "" {
			break // its own lines do not name it: any service's may
		}
		s.Reason += fmt.Sprintf("; %s's lines before name %s by %s", f.Service, host, name) + ruleTag(ruleCalleeNamedBefore)
		s.Service = name
		return
	}
	if a.res.Origin == nil || a.opts.ruleOff(ruleCalleeNamedElsewhere) {
		return
	}
	// No line of the trace gives the host (the suspect came from the
	// traces behind an open breaker), or its writer's lines before do not
	// name it: any service's lines before may.
	at := quantumEnd(a.res.Origin.Timestamp)
	// The name a host goes by is one, whichever trace asks: read once per
	// label, before the first trace that asks.
	found, err := memoized(a.memo, memoKey(ruleCalleeNamedElsewhere, s.Service), func() (hostName, error) {
		return labelNamed(ctx, st, s.Service, at)
	})
	if err != nil {
		a.res.Warnings = append(a.res.Warnings, fmt.Sprintf("cannot read the lines before the trace: %v", err))
		return
	}
	if found.name == "" || found.name == s.Service {
		return
	}
	s.Reason += fmt.Sprintf("; %s's lines before name %s by %s", found.by, found.host, found.name) + ruleTag(ruleCalleeNamedElsewhere)
	s.Service = found.name
}

// ruleCalleeNamedElsewhere: callee_named_before, when no line of the trace
// gives the host (a suspect settled behind an open breaker, from the
// traces that tripped it) or the lines before of the service that wrote it
// name it by no attribute: the warnings and errors of any service in the
// breakerLookback before the trace's origin that mention a host the
// suspect is the external name of, all naming their callee by one explicit
// attribute (peer=model-api on "retry 1/3 for POST
// https://api.inference.example.ai/…", a host the suspect "inference" is
// the name of: externalName) or, lacking one, by the name their words
// give it beside the host ("failed to call model-api: Post
// https://api.inference.example.ai/…"), name it.
//
// Constants: breakerLookback, breakerScan, tripQuantum.
// Test: TestRules/callee_named_elsewhere (TestCalleeNamedElsewhere).
const ruleCalleeNamedElsewhere = "callee_named_elsewhere"

// hostName is a host's name as a service's lines give it.
type hostName struct{ name, host, by string }

// labelNamed is namedOnLines of every service, on the lines that
// mention a host whose external name is label (hostNamedAs).
func labelNamed(ctx context.Context, st WindowStore, label string, at time.Time) (hostName, error) {
	return namedOnLines(ctx, st, "", at, func(body string) string { return hostNamedAs(body, label) })
}

// hostBeginning is the first host name in text (lowercased, with a dot)
// whose first label is label, or that is label; "" when none.
func hostBeginning(text, label string) string {
	label = strings.ToLower(label)
	return firstHost(text, func(tok string) bool {
		first, _, dotted := strings.Cut(tok, ".")
		return dotted && (first == label || tok == label)
	})
}

// hostNamedAs is the first host name in text (lowercased, with a dot)
// whose name as an external dependency (externalName) is label; "" when
// none.
func hostNamedAs(text, label string) string {
	label = strings.ToLower(label)
	return firstHost(text, func(tok string) bool {
		return strings.Contains(tok, ".") && !isIPv4(tok) && externalName(tok) == label
	})
}

// firstHost is the first host-like token of text, lowercased and trimmed
// of dots and dashes, that ok accepts; "" when none.
func firstHost(text string, ok func(tok string) bool) string {
	low := strings.ToLower(text)
	for i := 0; i < len(low); {
		if !isHostChar(low[i]) {
			i++
			continue
		}
		j := i
		for j < len(low) && isHostChar(low[j]) {
			j++
		}
		tok := strings.Trim(low[i:j], ".-")
		i = j
		if ok(tok) {
			return tok
		}
	}
	return ""
}

func isHostChar(c byte) bool { return isLetter(c) || isDigit(c) || c == '.' || c == '-' }

// hostNamed reads svc's warnings and errors of the breakerLookback before
// at and returns the one callee name their explicit attributes give on
// the lines that mention host; "" when none or several.
func hostNamed(ctx context.Context, st WindowStore, svc, host string, at time.Time) (string, error) {
	found, err := namedOnLines(ctx, st, svc, at, func(body string) string {
		if strings.Contains(strings.ToLower(body), host) {
			return host
		}
		return ""
	})
	return found.name, err
}

// namedOnLines reads the warnings and errors of svc (of every service for
// "") of the breakerLookback before at and returns the one callee name
// their explicit attributes give on the lines whose body hostIn finds a
// host in (with that host and the first service whose line said so); none
// when no line does or they name several.
func namedOnLines(ctx context.Context, st WindowStore, svc string, at time.Time, hostIn func(body string) string) (hostName, error) {
	q := schema.WindowQuery{From: at.Add(-breakerLookback), To: at, Service: svc, ErrorsOnly: true, Limit: breakerScan}
	var found hostName
	for r, err := range st.WindowRecords(ctx, q) {
		if err != nil {
			return hostName{}, err
		}
		host := hostIn(r.Body)
		if host == "" {
			continue
		}
		v := explicitName(&r)
		if v == "" {
			v = textName(&r, host)
		}
		switch {
		case v == "":
		case found.name == "":
			found = hostName{name: v, host: host, by: r.Service}
		case v != found.name:
			return hostName{}, nil
		}
	}
	return found, nil
}

// textName is the name a line's own words give the callee beside its
// host ("failed to call drm-keys-api: ... https://api.drm-keys.example.com"),
// lowercased, when that is no host itself and names the same dependency;
// "" otherwise.
func textName(r *schema.Record, host string) string {
	_, h := classifyWithHint(r, true)
	h = strings.ToLower(h)
	if h == "" || strings.IndexByte(h, '.') >= 0 || isIPv4(h) || !sameService(externalName(host), h) {
		return ""
	}
	return h
}

// explicitName is the callee a record names by its first explicit
// attribute (explicitAttrs), lowercased; "" when none does.
func explicitName(r *schema.Record) string {
	for _, k := range explicitAttrs {
		if v := r.Attrs[k]; v != "" {
			return strings.ToLower(v)
		}
	}
	return ""
}
