package enrich

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/slack-go/slack"
)

// DefaultAPIURL is Slack's Web API base.
const DefaultAPIURL = "https://slack.com/api/"

// Posted identifies a delivered message so that it can be edited later.
// Incoming webhooks give no ts: such messages cannot be edited, nor
// replied to in a thread. ThreadTS is only ever set on the prev a
// PostFunc is given (a reply); it is never stored.
type Posted struct {
	Channel  string `json:"channel,omitempty"`
	TS       string `json:"ts,omitempty"`
	ThreadTS string `json:"-"`
}

// PostFunc delivers m: an edit of the message prev names when prev.TS is
// set; else a reply in the thread of the message prev.ThreadTS (in
// prev.Channel) when that is set; else a new message. It is called with a
// context that carries the per-call timeout. Transports that cannot edit
// or thread ignore prev (the Service asks for neither without a ts).
type PostFunc func(ctx context.Context, m *Message, prev Posted) (Posted, error)

// WebAPIPoster posts through Slack's Web API (chat.postMessage and
// chat.update) with a bot token. apiURL "" is DefaultAPIURL; client nil is
// a client without a timeout of its own (the context bounds each call).
func WebAPIPoster(token, channel, apiURL string, client *http.Client) PostFunc {
	if apiURL == "" {
		apiURL = DefaultAPIURL
	}
	if !strings.HasSuffix(apiURL, "/") {
		apiURL += "/"
	}
	if client == nil {
		client = &http.Client{}
	}
	api := slack.New(token, slack.OptionAPIURL(apiURL), slack.OptionHTTPClient(client))
	return func(ctx context.Context, m *Message, prev Posted) (Posted, error) {
		opts := []slack.MsgOption{slack.MsgOptionText(m.Text, false), slack.MsgOptionBlocks(m.Blocks.BlockSet...)}
		if prev.TS != "" && prev.Channel != "" {
			ch, ts, _, err := api.UpdateMessageContext(ctx, prev.Channel, prev.TS, opts...)
			return Posted{Channel: firstNonEmpty(ch, prev.Channel), TS: firstNonEmpty(ts, prev.TS)}, err
		}
		to := channel
		if prev.ThreadTS != "" {
			to = firstNonEmpty(prev.Channel, channel)
			opts = append(opts, slack.MsgOptionTS(prev.ThreadTS))
		}
		ch, ts, err := api.PostMessageContext(ctx, to, opts...)
		return Posted{Channel: ch, TS: ts}, err
	}
}

// WebhookPoster posts to a Slack incoming webhook. Webhooks cannot edit
// nor reply in a thread (they return no ts): every call is a new message.
func WebhookPoster(webhookURL string, client *http.Client) PostFunc {
	if client == nil {
		client = &http.Client{}
	}
	return func(ctx context.Context, m *Message, _ Posted) (Posted, error) {
		blocks := m.Blocks
		msg := &slack.WebhookMessage{Text: m.Text, Blocks: &blocks}
		return Posted{}, slack.PostWebhookCustomHTTPContext(ctx, webhookURL, client, msg)
	}
}

// outcome is what a failed call means for the retry loop.
type outcome int

const (
	outcomeRetry     outcome = iota // transient: back off and retry
	outcomeRateLimit                // 429: wait Retry-After, Slack is up
	outcomePermanent                // Slack refused the message: do not retry
	outcomeStale                    // the message to edit is gone: post anew
)

// classify maps a transport error to what to do next and how long Slack
// asked us to wait.
func classify(err error) (outcome, time.Duration) {
	var rl *slack.RateLimitedError
	var sc slack.StatusCodeError
	var se slack.SlackErrorResponse
	switch {
	case errors.As(err, &rl):
		return outcomeRateLimit, rl.RetryAfter
	case errors.As(err, &sc):
		if sc.Code == http.StatusTooManyRequests {
			return outcomeRateLimit, 0
		}
		if sc.Code >= 500 || sc.Code == http.StatusRequestTimeout {
			return outcomeRetry, 0
		}
		return outcomePermanent, 0
	case errors.As(err, &se):
		switch se.Err {
		case "ratelimited", "rate_limited":
			return outcomeRateLimit, 0
		case "message_not_found", "cant_update_message", "edit_window_closed":
			return outcomeStale, 0
		case "internal_error", "fatal_error", "service_unavailable", "request_timeout", "team_added_to_org":
			return outcomeRetry, 0
		}
		return outcomePermanent, 0
	}
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, net.ErrClosed) {
		return outcomeRetry, 0
	}
	// Connection resets, EOFs, malformed answers: transient.
	return outcomeRetry, 0
}

// redactor removes secrets from text bound for logs and stored records.
type redactor struct{ secrets []string }

// secretPatterns catch Slack credentials even when they did not come from
// the configuration (a proxy's echo, an error from a library).
var secretPatterns = regexp.MustCompile(`xox[a-z]-[0-9A-Za-z-]+|hooks\.slack\.com/[^\s"']+`)

func newRedactor(secrets ...string) redactor {
	var r redactor
	for _, s := range secrets {
		if len(s) < 4 {
			continue
		}
		r.secrets = append(r.secrets, s, url.QueryEscape(s), url.PathEscape(s))
		if u, err := url.Parse(s); err == nil && len(u.Path) > 8 {
			r.secrets = append(r.secrets, u.Path)
		}
	}
	return r
}

func (r redactor) string(s string) string {
	for _, sec := range r.secrets {
		s = strings.ReplaceAll(s, sec, "[REDACTED]")
	}
	return secretPatterns.ReplaceAllString(s, "[REDACTED]")
}

// err is err with its message redacted. The result wraps nothing, so no
// caller can reach the unredacted text; classify before redacting.
func (r redactor) err(err error) error {
	if err == nil {
		return nil
	}
	return errors.New(r.string(err.Error()))
}
