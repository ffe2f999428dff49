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
		if name == "" || name == s.Service {
			return
		}
		s.Reason += fmt.Sprintf("; %s's lines before name %s by %s", f.Service, host, name) + ruleTag(ruleCalleeNamedBefore)
		s.Service = name
		return
	}
}

// hostBeginning is the first host name in text (lowercased, with a dot)
// whose first label is label, or that is label; "" when none.
func hostBeginning(text, label string) string {
	low, label := strings.ToLower(text), strings.ToLower(label)
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
		first, _, dotted := strings.Cut(tok, ".")
		if dotted && (first == label || tok == label) {
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
	q := schema.WindowQuery{From: at.Add(-breakerLookback), To: at, Service: svc, ErrorsOnly: true, Limit: breakerScan}
	name := ""
	for r, err := range st.WindowRecords(ctx, q) {
		if err != nil {
			return "", err
		}
		if !strings.Contains(strings.ToLower(r.Body), host) {
			continue
		}
		for _, k := range explicitAttrs {
			v := strings.ToLower(r.Attrs[k])
			if v == "" {
				continue
			}
			if name != "" && v != name {
				return "", nil
			}
			name = v
			break
		}
	}
	return name, nil
}
