package rootcause

import "testing"

// TestAboutOther checks which lines name another service as a word.
func TestAboutOther(t *testing.T) {
	for _, c := range []struct {
		text, name string
		want       bool
	}{
		{"fallback cache miss for classifier, serving default value", "classifier", true},
		{"retrying request to blobvault-api attempt=2/2", "blobvault-api", true},
		{"fallback for pricing.", "pricing", true},
		{"pricing-v2 answered slowly", "pricing", false},      // a longer name
		{"calling api.pricing.example.com", "pricing", false}, // a host's label
		{"reclassifier started", "classifier", false},
		{"served by classifier_v2", "classifier", false},
	} {
		if got := namesWord(c.text, c.name); got != c.want {
			t.Errorf("namesWord(%q, %q) = %v, want %v", c.text, c.name, got, c.want)
		}
	}
	p := &period{seenNames: map[string]struct{}{"cart": {}, "pricing": {}, "db": {}}}
	own := &templateStat{sample: "fallback for pricing: served the cached price"}
	short := &templateStat{sample: "query to db failed"}
	mine := &templateStat{sample: "cart is full"}
	if !p.aboutOther("cart", own) {
		t.Error("cart's line naming pricing is not about pricing")
	}
	if p.aboutOther("cart", short) {
		t.Error("a name shorter than minAboutName counts")
	}
	if p.aboutOther("cart", mine) {
		t.Error("a line naming its own writer is about another service")
	}
	p.aboutOff = true
	if p.aboutOther("cart", &templateStat{sample: own.sample}) {
		t.Error("the rule switched off still applies")
	}
}
