package enrich

import (
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/slack-go/slack"
)

// FuzzParseAndBuild: any body either fails with ErrBadAlert or gives a
// group whose message respects Slack's limits.
func FuzzParseAndBuild(f *testing.F) {
	for _, name := range []string{"alertmanager_firing.json", "alertmanager_resolved.json", "grafana_firing.json"} {
		b, err := readFixtureFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"version":"4","status":"firing","alerts":[{"labels":{"alertname":"<!here>","service":"a|b>"}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := Parse(data, ParseOptions{})
		if err != nil {
			if !errors.Is(err, ErrBadAlert) {
				t.Fatalf("error not wrapping ErrBadAlert: %v", err)
			}
			return
		}
		m := BuildMessage(g, analysisOf(g, knownReport(), nil), MessageOptions{PublicURL: publicURL, Now: testNow})
		if len(m.Blocks.BlockSet) > maxBlocks {
			t.Fatalf("%d blocks", len(m.Blocks.BlockSet))
		}
		for _, bl := range m.Blocks.BlockSet {
			if s, ok := bl.(*slack.SectionBlock); ok && utf8.RuneCountInString(s.Text.Text) > maxSectionText {
				t.Fatal("section over the limit")
			}
			if h, ok := bl.(*slack.HeaderBlock); ok && utf8.RuneCountInString(h.Text.Text) > maxHeaderText {
				t.Fatal("header over the limit")
			}
		}
	})
}
