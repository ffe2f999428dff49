package runbookgen

import (
	"strings"
	"testing"

	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/schema"
)

func TestSeverity(t *testing.T) {
	cases := []struct {
		name    string
		traces  int // of 1000
		kind    schema.Kind
		entries []string
		want    string
		reason  string
	}{
		{"big share alone", 300, schema.KindTimeout, nil, SevP1, "30.0%"},
		{"user facing and 5%", 60, schema.KindTimeout, []string{"GET /checkout"}, SevP1, "user-facing"},
		{"user facing but tiny", 10, schema.KindTimeout, []string{"GET /checkout"}, SevP2, "user-facing"},
		{"data loss 1%", 10, schema.KindPoisonMessage, []string{"orders consumer"}, SevP1, "loses data"},
		{"data loss tiny", 2, schema.KindPoisonMessage, nil, SevP2, "loses data"},
		{"background only", 20, schema.KindTimeout, []string{"nightly cron job"}, SevP3, "only background"},
		{"background but 6%", 60, schema.KindTimeout, []string{"batch worker"}, SevP2, "only background"},
		{"nothing recorded", 1, schema.KindDeterministic, nil, SevP3, "no entry point"},
		{"slow for users, nothing failed", 0, schema.KindNetworkDelay, []string{"GET /cart"}, SevP2, "entry point is slow"},
		{"slow in the background", 0, schema.KindCPUStarvation, []string{"orders consumer"}, SevP3, "evidence is slowness"},
		{"slow and failing", 300, schema.KindLatency, nil, SevP1, "30.0%"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep := &rootcause.Report{Traces: 1000}
			cand := &rootcause.Candidate{Kind: c.kind, Traces: c.traces, EntryPoints: c.entries}
			sev, why := severity(rep, cand, Text.String)
			if sev != c.want || !strings.Contains(why, c.reason) {
				t.Errorf("severity = %s, %q; want %s with %q", sev, why, c.want, c.reason)
			}
		})
	}
}

func TestSeverityEmptyReport(t *testing.T) {
	sev, why := severity(&rootcause.Report{}, &rootcause.Candidate{Kind: schema.KindTimeout}, Text.String)
	if sev != SevP3 || !strings.Contains(why, "0 of 0") {
		t.Errorf("empty report: %s %q", sev, why)
	}
}

func TestMTTRTarget(t *testing.T) {
	for sev, want := range map[string]string{SevP1: "15m", SevP2: "1h", SevP3: "4h"} {
		if got := MTTRTarget(sev); got != want {
			t.Errorf("MTTRTarget(%s) = %s, want %s", sev, got, want)
		}
	}
}

func TestRunbookID(t *testing.T) {
	a := RunbookID("payment", schema.KindTimeout, "abc")
	if a != RunbookID("payment", schema.KindTimeout, "abc") {
		t.Fatal("id is not stable")
	}
	if !strings.HasPrefix(a, "payment-timeout-") {
		t.Errorf("id %q does not name service and kind", a)
	}
	others := []string{
		RunbookID("payment", schema.KindTimeout, "abd"),
		RunbookID("payment", schema.KindOOM, "abc"),
		RunbookID("Payment", schema.KindTimeout, "abc"),
	}
	for _, o := range others {
		if o == a {
			t.Errorf("different candidates share id %q", a)
		}
	}
	for _, svc := range []string{"", "../../etc/passwd", "spaces and ünïcode", "a/b?c#d", strings.Repeat("x", 500), "<script>"} {
		id := RunbookID(svc, schema.KindTimeout, "s")
		if !ValidID(id) {
			t.Errorf("RunbookID(%q) = %q is not a valid id", svc, id)
		}
	}
}

func TestValidID(t *testing.T) {
	for _, id := range []string{"", ".hidden", "a/b", "a b", "a%2f", strings.Repeat("a", MaxIDLen+1)} {
		if ValidID(id) {
			t.Errorf("ValidID(%q) = true", id)
		}
	}
	for _, id := range []string{"timeout", "payment-timeout-0123abcd", "cand_1.v2"} {
		if !ValidID(id) {
			t.Errorf("ValidID(%q) = false", id)
		}
	}
}
