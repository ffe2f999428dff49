package enrich

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/runbookgen"
	"github.com/faultline/faultline/schema"
	"github.com/slack-go/slack"
)

// Message is what goes to Slack: the notification text and the Block Kit
// blocks. Its JSON is the body of an incoming webhook call.
type Message struct {
	Text   string       `json:"text"`
	Blocks slack.Blocks `json:"blocks"`
}

// JSON is the message as one JSON document, indented, with <, > and &
// left as they are (they are mrkdwn, not HTML).
func (m *Message) JSON() ([]byte, error) {
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Analysis is the outcome of analysing an alert's window: a report, or the
// error that kept the analysis from running.
type Analysis struct {
	From, To time.Time
	Report   *rootcause.Report
	Err      error
}

// MessageOptions shape the message; the zero value links relatively (no
// links) and shows three candidates and two example traces.
type MessageOptions struct {
	// PublicURL is the base of faultline's links (FAULTLINE_PUBLIC_URL).
	PublicURL string
	// Top is how many candidates are shown (default 3).
	Top int
	// ExampleTraces is how many trace links are shown (default 2).
	ExampleTraces int
	// Now is when the message is built (default time.Now), for "resolved
	// after" when the alert carries no end.
	Now time.Time
}

func (o MessageOptions) withDefaults() MessageOptions {
	if o.Top <= 0 {
		o.Top = 3
	}
	if o.ExampleTraces <= 0 {
		o.ExampleTraces = 2
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	return o
}

// BuildMessage renders the alert group and its analysis. It never fails:
// whatever the analysis gave, the alert itself is in the message.
func BuildMessage(g *Group, a Analysis, opt MessageOptions) *Message {
	opt = opt.withDefaults()
	b := &builder{g: g, a: a, opt: opt}
	b.header()
	b.alertSection()
	if rep := a.Report; a.Err == nil && rep != nil && len(rep.Candidates) > 0 {
		b.origin(rep.Candidates[0], rep)
		b.add(slack.NewDividerBlock())
		for i, c := range rep.Candidates[:min(opt.Top, len(rep.Candidates))] {
			b.candidate(i+1, c)
		}
		b.traces(rep.Candidates)
	} else {
		b.unavailable()
	}
	if rep := a.Report; a.Err == nil && rep != nil {
		b.caveats(rep.Warnings)
	}
	b.links()
	b.context()
	return &Message{Text: b.fallback(), Blocks: slack.Blocks{BlockSet: capBlocks(b.blocks)}}
}

type builder struct {
	g       *Group
	a       Analysis
	opt     MessageOptions
	blocks  []slack.Block
	origin1 string // the one-sentence origin, for the fallback text
}

func (b *builder) add(bl slack.Block) { b.blocks = append(b.blocks, bl) }

func (b *builder) section(mrkdwn string) {
	b.add(slack.NewSectionBlock(mrkdwnText(cutMrkdwn(mrkdwn, maxSectionText)), nil, nil))
}

func mrkdwnText(s string) *slack.TextBlockObject {
	return slack.NewTextBlockObject(slack.MarkdownType, s, false, false)
}

func (b *builder) header() {
	icon, word := ":red_circle:", "FIRING"
	if b.g.Status == StatusResolved {
		icon, word = ":large_green_circle:", "RESOLVED"
	}
	t := fmt.Sprintf("%s %s: %s", icon, word, plain(b.g.Title, maxInputString))
	if b.g.Severity != "" {
		t += " (" + plain(b.g.Severity, 40) + ")"
	}
	b.add(slack.NewHeaderBlock(slack.NewTextBlockObject(slack.PlainTextType, cut(t, maxHeaderText), true, false)))
}

// alertSection is the alert as received: summary, service, severity, when.
func (b *builder) alertSection() {
	g := b.g
	var s strings.Builder
	if g.Summary != "" {
		s.WriteString(inline(g.Summary, maxInputString) + "\n")
	}
	if g.Status == StatusResolved {
		end := g.EndsAt
		if end.IsZero() {
			end = b.opt.Now
		}
		fmt.Fprintf(&s, ":white_check_mark: Resolved after %s (firing since %s).\n", duration(end.Sub(g.StartsAt)), clock(g.StartsAt))
	}
	fields := []*slack.TextBlockObject{
		mrkdwnText("*Service*\n" + orDash(code(g.Service, 100), g.Service)),
		mrkdwnText("*Severity*\n" + orDash(inline(g.Severity, 40), g.Severity)),
		mrkdwnText("*Started*\n" + clock(g.StartsAt)),
		mrkdwnText(fmt.Sprintf("*Alerts*\n%d firing, %d resolved", g.Firing, g.Resolved)),
	}
	text := strings.TrimSpace(s.String())
	if text == "" {
		text = fmt.Sprintf("Alert from %s.", sourceName(g.Source))
	}
	b.add(slack.NewSectionBlock(mrkdwnText(cutMrkdwn(text, maxSectionText)), fields, nil))
}

// origin is the one sentence that says where the failure likely began.
func (b *builder) origin(c rootcause.Candidate, rep *rootcause.Report) {
	where := "*" + inline(c.Service, 100) + "*"
	if c.Operation != "" {
		where += " (" + code(c.Operation, 100) + ")"
	}
	s := fmt.Sprintf(":dart: *Likely origin:* %s, %s since %s, behind %d of %d failing traces.",
		where, kindPhrase(c.Kind), clock(c.FirstSeen), c.Traces, rep.FailedTraces)
	b.origin1 = fmt.Sprintf("likely origin %s (%s)", plain(c.Service, 100), c.Kind)
	b.section(s)
}

func (b *builder) candidate(rank int, c rootcause.Candidate) {
	var s strings.Builder
	fmt.Fprintf(&s, "*%d. %s* · %s · %s · %d traces · since %s",
		rank, inline(c.Service, 100), code(string(c.Kind), 40), runbookgen.ExplainedWords(&c), c.Traces, clock(c.FirstSeen))
	if c.Template != "" {
		s.WriteString("\n" + code(c.Template, maxTemplate))
	}
	// The headline says the share explained: the evidence line that says
	// it too gives its place to the next one.
	ev := slices.DeleteFunc(slices.Clone(c.Evidence), func(e string) bool { return strings.HasSuffix(e, " [explained]") })
	for _, e := range ev[:min(3, len(ev))] {
		s.WriteString("\n• " + inline(e, maxEvidence))
	}
	if rb := c.Runbook; rb != nil {
		s.WriteString("\n:book: " + b.runbookLink(rb))
	}
	b.section(s.String())
}

// maxCaveats is how many of the report's warnings a message shows.
const maxCaveats = 3

// caveats are the report's warnings: what the analysis could not see (a
// window cut at the record limit, a thin baseline, damaged blocks) is said
// where the analysis is read, with its numbers.
func (b *builder) caveats(ws []string) {
	if len(ws) == 0 {
		return
	}
	var s strings.Builder
	for i, w := range ws[:min(maxCaveats, len(ws))] {
		if i > 0 {
			s.WriteString("\n")
		}
		s.WriteString(":warning: " + inline(w, maxEvidence))
	}
	if n := len(ws) - maxCaveats; n > 0 {
		fmt.Fprintf(&s, "\n…and %d more on the incident page.", n)
	}
	b.add(slack.NewContextBlock("", mrkdwnText(cutMrkdwn(s.String(), maxContextText))))
}

func (b *builder) runbookLink(rb *schema.RunbookRef) string {
	label := fmt.Sprintf("Runbook %s (%s, MTTR %s)", rb.ID, rb.Severity, rb.MTTRTarget)
	if u := absolute(b.opt.PublicURL, rb.URL); u != "" {
		return link(u, label)
	}
	return inline(label, 200) + " " + code(rb.URL, 200)
}

// traces links example traces, the top candidate's first.
func (b *builder) traces(cands []rootcause.Candidate) {
	var ids []schema.TraceID
	for _, c := range cands {
		for _, id := range c.ExampleTraces {
			if len(ids) < b.opt.ExampleTraces && !containsID(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	if len(ids) == 0 {
		return
	}
	parts := make([]string, len(ids))
	for i, id := range ids {
		path := "/trace/" + url.PathEscape(string(id))
		if u := absolute(b.opt.PublicURL, path); u != "" {
			parts[i] = link(u, string(id))
		} else {
			parts[i] = code(path, 80)
		}
	}
	b.section(":mag: *Example traces:* " + strings.Join(parts, " · "))
}

// unavailable says plainly why there is no analysis.
func (b *builder) unavailable() {
	from, to := clock(b.a.From), clock(b.a.To)
	var s string
	switch err := b.a.Err; {
	case errors.Is(err, rootcause.ErrNoData):
		s = fmt.Sprintf(":warning: *No analysis:* faultline holds no logs or spans between %s and %s, so it cannot say where this began. Is ingest running for this service?", from, to)
	case errors.Is(err, context.DeadlineExceeded):
		s = fmt.Sprintf(":warning: *No analysis:* the analysis of %s to %s took too long and was stopped. Open the incident page to run it.", from, to)
	case err != nil:
		s = ":warning: *No analysis:* faultline could not read its store, so this alert is shown as received. Check that faultline's store is reachable."
	default:
		s = fmt.Sprintf(":information_source: *No failing traces* between %s and %s: nothing in faultline's logs and spans explains this alert.", from, to)
	}
	b.section(s)
}

// links: the incident page, our top runbook and the alert's own runbook.
func (b *builder) links() {
	var parts []string
	if u := b.incidentURL(); u != "" {
		parts = append(parts, ":bar_chart: "+link(u, "Open the incident in faultline"))
	}
	if rep := b.a.Report; b.a.Err == nil && rep != nil && len(rep.Candidates) > 0 && rep.Candidates[0].Runbook != nil {
		if u := absolute(b.opt.PublicURL, rep.Candidates[0].Runbook.URL); u != "" {
			parts = append(parts, ":book: "+link(u, "faultline runbook"))
		}
	}
	if b.g.RunbookURL != "" {
		if u := safeURL(b.g.RunbookURL); u != "" {
			parts = append(parts, ":link: link from the alert: "+link(b.g.RunbookURL, hostOf(b.g.RunbookURL)))
		} else {
			parts = append(parts, ":link: link from the alert: "+code(b.g.RunbookURL, 200))
		}
	}
	if len(parts) > 0 {
		b.section(strings.Join(parts, "   "))
	}
}

// hostOf is the host of an alert's link, so the message says where it
// leads rather than calling it a runbook.
func hostOf(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		return u.Host
	}
	return "link"
}

func (b *builder) incidentURL() string {
	if b.a.From.IsZero() {
		return ""
	}
	q := "from=" + url.QueryEscape(b.a.From.UTC().Format(time.RFC3339)) + "&to=" + url.QueryEscape(b.a.To.UTC().Format(time.RFC3339))
	if b.g.Service != "" {
		q += "&service=" + url.QueryEscape(b.g.Service)
	}
	return absolute(b.opt.PublicURL, "/incident?"+q)
}

func (b *builder) context() {
	s := fmt.Sprintf("faultline · %s · window %s to %s", sourceName(b.g.Source), clock(b.a.From), clock(b.a.To))
	if rep := b.a.Report; b.a.Err == nil && rep != nil {
		s += fmt.Sprintf(" · %d traces, %d failing", rep.Traces, rep.FailedTraces)
	}
	if u := safeURL(b.g.SourceURL); u != "" {
		s += " · " + link(b.g.SourceURL, "source")
	}
	b.add(slack.NewContextBlock("", mrkdwnText(cutMrkdwn(s, maxContextText))))
}

// fallback is the notification text: plain, no markup beyond escaping.
func (b *builder) fallback() string {
	s := fmt.Sprintf("[%s] %s", strings.ToUpper(string(b.g.Status)), b.g.Title)
	if b.g.Severity != "" {
		s += " (" + b.g.Severity + ")"
	}
	if b.g.Service != "" {
		s += " on " + b.g.Service
	}
	if b.origin1 != "" {
		s += ": " + b.origin1
	}
	return escapeMrkdwn(plain(s, maxFallback))
}

// capBlocks keeps a message within Slack's block limit, keeping the last
// block (the context line).
func capBlocks(bl []slack.Block) []slack.Block {
	if len(bl) <= maxBlocks {
		return bl
	}
	return append(bl[:maxBlocks-1:maxBlocks-1], bl[len(bl)-1])
}

func kindPhrase(k schema.Kind) string { return "`" + escapeMrkdwn(string(k)) + "`" }

func clock(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("15:04:05 UTC")
}

// duration is a short human duration: 45s, 12m, 1h05m.
func duration(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d < 0:
		return "0s"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	default:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
}

func orDash(formatted, raw string) string {
	if raw == "" {
		return "—"
	}
	return formatted
}

func sourceName(s Source) string {
	if s == SourceGrafana {
		return "Grafana"
	}
	return "Alertmanager"
}

func containsID(ids []schema.TraceID, id schema.TraceID) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}
