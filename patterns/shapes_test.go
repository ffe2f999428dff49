package patterns

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
)

// The shape families (issue 29) put variables where the masker cannot know
// their shape: hosts with no dot, under unknown or country top-level
// domains, in capitals, IPv6 addresses bare and bracketed, host:port with
// any host, often as the first word of the message; and fields that are
// empty or missing (": error: ..." with no program before the colon, a
// line with no program at all, key= with no value, '' and "-" for a user).
// They were written, and measured, before the miner was changed for the
// issue, and their seeds were drawn at random once and never changed.

var shapeFamilies = []family{
	{"proxy", []string{
		"{exe} - {endpoint} open through proxy {endpoint} HTTPS",
		"{exe} - {endpoint} close, {n} bytes sent, {n} bytes received, lifetime {lifetime}",
		"{exe} - {endpoint} error : Could not connect through proxy {endpoint} - Proxy server cannot establish a connection with the target, status code {status}",
		"{exe} - {endpoint} error : A connection request was canceled before the completion.",
		"{exe} - {host} error : Could not resolve {host} through proxy {endpoint}",
	}},
	{"endpoint-first", []string{
		"{endpoint} close, {n} bytes sent, {n} bytes received, lifetime {lifetime}",
		"{endpoint} open through proxy {endpoint} HTTPS",
		"{endpoint} error : Could not connect through proxy {endpoint} - connection timed out",
		"{host} is reachable again via {endpoint} after {dur}",
		"{host} answered {status} to {method} {urlpath}",
	}},
	{"upstream", []string{
		"dial tcp {endpoint}: connect: connection refused",
		"upstream {endpoint} marked down after {n} failed health checks",
		"lookup {host} on {endpoint}: no such host",
		"x509: certificate is valid for {host}, not {host}",
		"forwarding {method} {urlpath} to {endpoint} took {dur}",
		"resolved {host} to {ip6} in {dur}",
	}},
	{"empty-fields", []string{
		"{progc} error: cannot open {path}: Permission denied",
		"{progc} warning: {host} did not answer within {dur}",
		"{progc} session {n} closed by peer",
		"request id={reqid} user={optv} status={status} took {dur}",
		"login failed for user '{optv}' from {endpoint}",
		"{client} {dash} {optuser} \"{method} {urlpath} HTTP/1.1\" {status} {n}",
	}},
}

// shapeSeeds were drawn from /dev/urandom before the families were first
// run; PATTERNS_SEEDS (comma-separated) runs others.
var shapeSeeds = []uint64{13789543353747410978, 5085404737780551063, 16702468626231812561}

// minShapeFamilyGA is issue 29's floor for every shape family and seed.
const minShapeFamilyGA = 0.85

func TestShapeFamilies(t *testing.T) {
	seeds := shapeSeeds
	if s := os.Getenv("PATTERNS_SEEDS"); s != "" {
		seeds = nil
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.ParseUint(strings.TrimSpace(f), 10, 64)
			if err != nil {
				t.Fatalf("PATTERNS_SEEDS: %v", err)
			}
			seeds = append(seeds, n)
		}
	}
	sum, n := 0.0, 0
	for _, seed := range seeds {
		for _, f := range shapeFamilies {
			lines := generateShapes(f, 300, seed)
			pred := mineAll(lines)
			ga := groupingAccuracy(lines, pred)
			sum += ga
			n++
			t.Logf("seed %d %-14s GA %.3f  %d templates for %d events", seed, f.name, ga, countDistinct(pred), countTruths(lines))
			if ga < minShapeFamilyGA {
				t.Errorf("seed %d %s: GA %.3f, want at least %.2f%s", seed, f.name, ga, minShapeFamilyGA, explainErrors(lines, pred))
			} else if os.Getenv("PATTERNS_DEBUG") == f.name {
				t.Log(explainErrors(lines, pred))
			}
		}
	}
	t.Logf("shape families: mean GA %.3f", sum/float64(n))
}

// generateShapes is generate with the shape slots as well.
func generateShapes(f family, n int, seed uint64) []labelled {
	g := shapeGen{gen{rand.New(rand.NewPCG(seed, uint64(len(f.name))))}}
	weights := make([]int, len(f.events))
	total := 0
	for i := range weights {
		weights[i] = 1 + g.r.IntN(8)
		total += weights[i]
	}
	out := make([]labelled, 0, n)
	for len(out) < n {
		k := g.r.IntN(total)
		e := 0
		for k >= weights[e] {
			k -= weights[e]
			e++
		}
		out = append(out, labelled{g.fill(f.events[e]), f.events[e]})
	}
	return out
}

// shapeGen fills the shape slots and falls back to gen for the others.
type shapeGen struct{ gen }

func (g shapeGen) letters(lo, hi int) string {
	b := make([]byte, lo+g.r.IntN(hi-lo+1))
	for i := range b {
		b[i] = byte('a' + g.r.IntN(26))
	}
	return string(b)
}

// host is a host name or address of any shape.
func (g shapeGen) host() string {
	switch g.r.IntN(8) {
	case 0:
		return g.letters(3, 10) // a single label: proxyhost
	case 1:
		return g.letters(2, 6) + "-" + g.alnum(1+g.r.IntN(3)) // db-7, edge-x2
	case 2:
		return strings.ToUpper(g.letters(3, 8)) + g.num(1, 99) // FILESRV01
	case 3:
		return g.labels() + "." + g.letters(2, 2) // a country TLD: shop.kz
	case 4:
		return g.labels() + "." + g.letters(3, 7) // an unknown TLD
	case 5:
		return g.num(1, 223) + "." + g.num(0, 255) + "." + g.num(0, 255) + "." + g.num(1, 254)
	case 6:
		return g.ip6()
	}
	return g.fqdn()
}

func (g shapeGen) labels() string {
	ls := []string{g.letters(2, 9)}
	for range g.r.IntN(3) {
		ls = append(ls, g.letters(2, 9))
	}
	return strings.Join(ls, ".")
}

func (g shapeGen) ip6() string {
	h := func() string { return fmt.Sprintf("%x", g.r.IntN(65536)) }
	switch g.r.IntN(4) {
	case 0:
		groups := make([]string, 8)
		for i := range groups {
			groups[i] = fmt.Sprintf("%04x", g.r.IntN(65536))
		}
		return strings.Join(groups, ":")
	case 1:
		return "fe80::" + h() + ":" + h() + ":" + h()
	case 2:
		return "::" + g.pick("1", "ffff:"+g.num(1, 223)+"."+g.num(0, 255)+"."+g.num(0, 255)+"."+g.num(1, 254))
	}
	return "2001:db8:" + h() + "::" + h()
}

// endpoint is host:port with any host; an IPv6 address is bracketed.
func (g shapeGen) endpoint() string {
	h := g.host()
	port := g.pick("80", "443", "8080", "3128", "1080", g.num(1, 65535))
	if strings.Contains(h, ":") {
		return "[" + h + "]:" + port
	}
	return h + ":" + port
}

func (g shapeGen) slot(name string) string {
	switch name {
	case "host":
		return g.host()
	case "endpoint":
		return g.endpoint()
	case "ip6":
		return g.ip6()
	case "client":
		return g.pick(g.host(), g.num(1, 223)+"."+g.num(0, 255)+"."+g.num(0, 255)+"."+g.num(1, 254))
	case "exe":
		name := g.letters(3, 9)
		return g.pick(name+".exe", strings.ToUpper(name)+".EXE", name, name+"-helper") + g.pick("", "", " *64")
	case "progc": // a program before a colon, empty, or missing
		name := g.letters(3, 8)
		return g.pick(name+"["+g.num(100, 65000)+"]:", name+":", ":", "")
	case "optv": // a value, or nothing
		return g.pick("", g.letters(3, 8), g.pick(genUsers...))
	case "optuser": // a user, or "-" for none
		return g.pick("-", "-", g.pick(genUsers...))
	case "dash":
		return "-"
	case "reqid":
		return g.hex(16)
	case "lifetime":
		return g.pick("<1 sec", g.num(1, 59)+" sec", fmt.Sprintf("%02d:%02d", g.r.IntN(60), g.r.IntN(60)), g.clock())
	case "status":
		return g.num(200, 599)
	}
	return g.gen.slot(name)
}

// fill is gen.fill with the shape slots.
func (g shapeGen) fill(format string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(format, '{')
		j := strings.IndexByte(format[max(i, 0):], '}')
		if i < 0 || j < 0 {
			b.WriteString(format)
			break
		}
		b.WriteString(format[:i])
		b.WriteString(g.slot(format[i+1 : i+j]))
		format = format[i+j+1:]
	}
	return strings.Join(strings.Fields(b.String()), " ")
}
