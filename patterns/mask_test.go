package patterns

import (
	"strings"
	"testing"
)

func TestMask(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"empty", "", ""},
		{"blank", " \t ", ""},
		{"plain words stay", "check pass; user unknown", "check pass; user unknown"},
		{"whitespace folds", "a  b\t\tc ", "a b c"},
		{"numbers", "PacketResponder 1 for block blk_-6952295868487656571 terminating",
			"PacketResponder <*> for block <*> terminating"},
		{"ip and port collapse", "Received connection request /10.10.34.11:45307",
			"Received connection request <*>"},
		{"ip in brackets", "reverse mapping checking getaddrinfo for ns.example.com [173.234.31.186] failed",
			"reverse mapping checking getaddrinfo for <*> [<*>] failed"},
		{"fqdn and host:port", "connect to proxy.cse.example.edu.hk:5070 via kafka-2.kafka.svc.cluster.local:9092",
			"connect to <*> via <*>"},
		{"domain with a gTLD", "resolved api.example.com and mail.google.com", "resolved <*> and <*>"},
		{"file names", "chrome.exe wrote app.log and nginx.service", "<*> wrote <*> and <*>"},
		{"code names stay", "dfs.DataNode: java.lang.OutOfMemoryError in os.Open from Client.Timeout",
			"dfs.DataNode: java.lang.OutOfMemoryError in os.Open from Client.Timeout"},
		{"dotted keys stay", "span user.id=42 http.method=GET", "span user.id=<*> http.method=<*>"},
		{"size units fold", "sent 3.4 MiB (1.00 KB) of 12 GB, 512 bytes", "sent <*> (<*>) of <*>, <*>"},
		{"duration units fold", "lifetime <1 sec, then 12.5 seconds, 3 ms; 00:01:02", "lifetime <*>, then <*>, <*>; <*>"},
		{"plain words after numbers stay", "3 retries after 5 failures", "<*> retries after <*> failures"},
		{"windows path", `Loading C:\Windows\servicing\Sessions failed`, `Loading C:<*> failed`},
		{"ipv6", "from fe80::1ff:fe23:4567:890a and 2001:db8::1 ok", "from <*> and <*> ok"},
		{"uuid", "[instance: b9000564-fe1a-409b-b8cc-1e88b294cd1d] Claim successful",
			"[instance: <*>] Claim successful"},
		{"duration and size", "call exceeded 3000ms after 3 retries, payload 12KB",
			"call exceeded <*> after <*> retries, payload <*>"},
		{"key=value", "authentication failure; logname= uid=0 euid=0 tty=NODEVssh ruser= rhost=218.188.2.4",
			"authentication failure; logname= uid=<*> euid=<*> tty=<*> ruser= rhost=<*>"},
		{"key=value word values", "order rejected user=alice reason=fraud",
			"order rejected user=<*> reason=<*>"},
		{"quoted single word", "user 'bob' not found in \"accounts\"",
			"user '<*>' not found in \"<*>\""},
		{"quoted phrase keeps words", `msg="connection refused by peer" code=ECONNREFUSED`,
			`msg="connection refused by peer" code=<*>`},
		{"json keys stay", `body {"user_id":123,"status":"failed","tags":["a","b"]}`,
			`body {"user_id":<*>,"status":"<*>","tags":["<*>","<*>"]}`},
		{"apostrophe is not a quote", "can't connect: don't retry", "can't connect: don't retry"},
		{"email", "sent reset mail to jane.doe@example.org", "sent reset mail to <*>"},
		{"path without digits", "ciod: LOGIN chdir(/home/alice/run) failed", "ciod: LOGIN chdir(<*>) failed"},
		{"relative path", "Error loading ./runtime_malloc: bad image", "Error loading <*>: bad image"},
		{"url", "GET https://api.example.com:8443/v1/orders/42?x=1 failed",
			"GET https://api.example.com:<*> failed"},
		{"quoted url keeps its host", `Post "http://payment/charge": context deadline exceeded`,
			`Post "http://payment/<*>": context deadline exceeded`},
		{"written timestamp", "connection from 1.2.3.4 () at Sun Jul 10 03:55:21 2005",
			"connection from <*> () at <*>"},
		{"month word outside a date", "May the retry succeed", "May the retry succeed"},
		{"iso timestamp", "2024-05-01T12:00:00.123Z ERROR payment timed out", "<*> ERROR payment timed out"},
		{"mac address", "chip FF:F2:9C:00:EA:5F ready", "chip <*> ready"},
		{"hex without digits", "token deadbeefcafebabe expired", "token <*> expired"},
		{"leader dots", "icache prefetch depth.........0", "icache prefetch depth.........<*>"},
		{"variable list folds", "ask 10.250.14.224:50010 to delete blk_1 blk_2 blk_3", "ask <*> to delete <*>"},
		{"hex number", "fault at 0x7fff5fbff8a0", "fault at <*>"},
		{"breaker state kept", "circuit breaker is OPEN for payment-gateway", "circuit breaker is OPEN for payment-gateway"},
		{"unterminated quote", `bad input "abc`, `bad input "abc`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Mask(tt.in); got != tt.want {
				t.Errorf("Mask(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestMaskIdempotent checks that masking the template of a real message
// changes nothing. (Arbitrary bytes can break this at the edges, where a
// masked <*> forms new punctuation; the fuzzer does not insist.)
func TestMaskIdempotent(t *testing.T) {
	for _, in := range []string{
		"PacketResponder 1 for block blk_-69 terminating",
		"authentication failure; uid=0 rhost=218.188.2.4 user=root",
		"user 'bob' at Sun Jul 10 03:55:21 2005 from 10.0.0.1:80",
		`Post "http://payment:8080/charge?id=7": context deadline exceeded`,
		`body {"user_id":123,"status":"failed"} sent to s3://bucket/key`,
		"chrome.exe - proxy.example.com:5070 close, 0 bytes (1.00 KB) sent, lifetime <1 sec",
		"took 3.4 MiB and 12 ms from [2001:db8::1]:443",
	} {
		once := Mask(in)
		if twice := Mask(once); twice != once {
			t.Errorf("Mask is not idempotent on %q: %q then %q", in, once, twice)
		}
	}
}

// TestMaskSameVariablesSameTemplate checks that messages that differ only
// in their variables share one template and one signature.
func TestMaskSameVariablesSameTemplate(t *testing.T) {
	a := Mask("timeout calling inventory after 3000ms (attempt 2/3) trace_id=4bf92f3577b34da6a3ce929d0e0e4736")
	b := Mask("timeout calling inventory after 250ms (attempt 3/3) trace_id=00f067aa0ba902b7a3ce929d0e0e4736")
	if a != b {
		t.Fatalf("templates differ:\n%q\n%q", a, b)
	}
	if SignatureOf("svc", a) != SignatureOf("svc", b) {
		t.Error("same template, different signatures")
	}
	if SignatureOf("svc", a) == SignatureOf("other", a) {
		t.Error("the service does not enter the signature")
	}
	if s := SignatureOf("svc", a); len(s) != 16 || strings.Trim(string(s), "0123456789abcdef") != "" {
		t.Errorf("signature %q is not sixteen lowercase hex characters", s)
	}
}

// TestMaskKeepWords checks the miner's lighter masking: plain-word values
// of key=value stay, numbers still go.
func TestMaskKeepWords(t *testing.T) {
	got := mask("rejected user=alice uid=42 rhost=10.0.0.1", true)
	if want := "rejected user=alice uid=<*> rhost=<*>"; got != want {
		t.Errorf("mask(keepWords) = %q, want %q", got, want)
	}
}

func FuzzMask(f *testing.F) {
	for _, s := range []string{"", "a=b", `"x"`, "'", "x=\"", "1:2:3", "Jan", "Jan 1", "....1", "a@b.c", "<*>:<*>", "=\"a b\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Mask(s)
		if Mask(s) != got {
			t.Fatalf("Mask(%q) is not deterministic", s)
		}
		if strings.ContainsAny(got, "\t\n\r") || strings.Contains(got, "  ") {
			t.Fatalf("Mask(%q) = %q keeps raw whitespace", s, got)
		}
		if strings.ContainsAny(got, "0123456789") {
			t.Fatalf("Mask(%q) = %q keeps a digit", s, got)
		}
	})
}

func TestIsHostOrFile(t *testing.T) {
	for s, want := range map[string]bool{
		"proxy.cse.example.edu.hk": true, "api.example.com": true, "kafka.svc.cluster.local": true,
		"bbc.co.uk": true, "chrome.exe": true, "OUTLOOK.EXE": true, "nginx.service": true, "app.log": true,
		"dfs.DataNode": false, "java.lang.Error": false, "os.Open": false, "user.id": false,
		"e.g.": false, "a..com": false, "done.": false, ".com": false, "x_y.internal": true,
	} {
		if got := isHostOrFile(s); got != want {
			t.Errorf("isHostOrFile(%q) = %v, want %v", s, got, want)
		}
	}
}
