package enrich

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// ErrNotConfigured is returned by New when no Slack destination is set:
// accepting alerts with nowhere to send them would swallow them.
var ErrNotConfigured = errors.New("no Slack destination: set FAULTLINE_SLACK_WEBHOOK_URL, or FAULTLINE_SLACK_TOKEN and FAULTLINE_SLACK_CHANNEL")

// ErrBadConfig is wrapped by configuration errors.
var ErrBadConfig = errors.New("bad enrichment configuration")

// Config configures alert enrichment. Durations and sizes that are zero
// take the defaults named on each field.
type Config struct {
	// WebhookURL is a Slack incoming webhook (FAULTLINE_SLACK_WEBHOOK_URL).
	WebhookURL string
	// Token and Channel select the Web API (FAULTLINE_SLACK_TOKEN,
	// FAULTLINE_SLACK_CHANNEL); it wins over WebhookURL because it can
	// edit messages.
	Token, Channel string
	// APIURL is the Web API base (FAULTLINE_SLACK_API_URL, default
	// DefaultAPIURL).
	APIURL string
	// HookToken, when set, is the bearer token the hooks require
	// (FAULTLINE_HOOK_TOKEN).
	HookToken string
	// PublicURL is the base of links in messages (FAULTLINE_PUBLIC_URL).
	PublicURL string
	// ServiceLabels are the labels naming the service, in order (default
	// service, service_name, job, app).
	ServiceLabels []string

	LookBack        time.Duration // analysed before the alert started (15m)
	MaxWindow       time.Duration // how long after the alert started is analysed, when it has not ended (6h; see Group.Window)
	Top             int           // candidates shown (3)
	QueueSize       int           // alert groups waiting, all shards (256)
	Workers         int           // ordered shards, one worker each (2)
	AnalysisTimeout time.Duration // one analysis (30s)
	CallTimeout     time.Duration // one Slack call (10s)
	MaxAttempts     int           // Slack calls per message, breaker probes included, across restarts (20: about 8 minutes of a failing Slack)
	BackoffBase     time.Duration // first retry delay, doubled each time (1s)
	BackoffMax      time.Duration // longest retry delay (1m)
	DeliveryBudget  time.Duration // from acceptance to dead letter, across restarts (15m)
	ResendAttempts  int           // Slack calls of one dead-letter resend (3)
	ResendDeadline  time.Duration // one dead-letter resend, all calls (30s)
	ClaimSettle     time.Duration // wait before a resend's claim is read back (250ms; see claim.go)
	BreakerFailures int           // consecutive failures that open the breaker (5)
	BreakerCooldown time.Duration // open before a probe (30s)
	DedupeWindow    time.Duration // identical resends dropped within (10m)
	MaxBody         int64         // hook body limit (4 MiB)
	RetryAfter      time.Duration // advised to notifiers when the queue is full (30s)

	// NoJournal turns off keeping accepted alerts in the store until they
	// are settled (for a read-only store): a crash then loses the queue.
	NoJournal bool

	// HTTPClient makes the Slack calls (default a plain client; the
	// context bounds each call).
	HTTPClient *http.Client
	// Post, when set, replaces the Slack transport (tests, other sinks).
	Post PostFunc
	// Sleep waits between retries (default a timer honouring ctx); Now is
	// the clock (default time.Now). Tests set them.
	Sleep func(ctx context.Context, d time.Duration) error
	Now   func() time.Time
}

// ConfigFromEnv reads the settings of the contract from the environment.
func ConfigFromEnv(getenv func(string) string) Config {
	get := func(k string) string { return strings.TrimSpace(getenv(k)) }
	c := Config{
		WebhookURL: get("FAULTLINE_SLACK_WEBHOOK_URL"),
		Token:      get("FAULTLINE_SLACK_TOKEN"),
		Channel:    get("FAULTLINE_SLACK_CHANNEL"),
		APIURL:     get("FAULTLINE_SLACK_API_URL"),
		HookToken:  get("FAULTLINE_HOOK_TOKEN"),
		PublicURL:  get("FAULTLINE_PUBLIC_URL"),
	}
	if v := get("FAULTLINE_SERVICE_LABELS"); v != "" {
		for _, l := range strings.Split(v, ",") {
			if l = strings.TrimSpace(l); l != "" {
				c.ServiceLabels = append(c.ServiceLabels, l)
			}
		}
	}
	return c
}

// Configured reports whether a Slack destination (or a Post function) is set.
func (c Config) Configured() bool {
	return c.Post != nil || c.WebhookURL != "" || (c.Token != "" && c.Channel != "")
}

// Validate reports whether the configuration is usable. Its errors never
// contain the token or the webhook URL.
func (c Config) Validate() error {
	_, err := c.withDefaults()
	return err
}

func (c Config) withDefaults() (Config, error) {
	if (c.Token == "") != (c.Channel == "") {
		return c, fmt.Errorf("%w: FAULTLINE_SLACK_TOKEN and FAULTLINE_SLACK_CHANNEL go together", ErrBadConfig)
	}
	if c.WebhookURL != "" && !httpURL(c.WebhookURL) {
		return c, fmt.Errorf("%w: the Slack webhook URL is not an http(s) URL", ErrBadConfig)
	}
	if c.APIURL != "" && !httpURL(c.APIURL) {
		return c, fmt.Errorf("%w: FAULTLINE_SLACK_API_URL is not an http(s) URL", ErrBadConfig)
	}
	if c.PublicURL != "" && !httpURL(c.PublicURL) {
		return c, fmt.Errorf("%w: FAULTLINE_PUBLIC_URL %q is not an http(s) URL", ErrBadConfig, cut(c.PublicURL, 80))
	}
	durs := []struct {
		v *time.Duration
		d time.Duration
	}{
		{&c.LookBack, 15 * time.Minute}, {&c.MaxWindow, 6 * time.Hour}, {&c.AnalysisTimeout, 30 * time.Second},
		{&c.CallTimeout, 10 * time.Second}, {&c.BackoffBase, time.Second}, {&c.BackoffMax, time.Minute},
		{&c.DeliveryBudget, 15 * time.Minute}, {&c.BreakerCooldown, 30 * time.Second},
		{&c.DedupeWindow, 10 * time.Minute}, {&c.RetryAfter, 30 * time.Second},
		{&c.ResendDeadline, 30 * time.Second}, {&c.ClaimSettle, claimSettle},
	}
	for _, d := range durs {
		if *d.v <= 0 {
			*d.v = d.d
		}
	}
	ints := []struct {
		v *int
		d int
	}{{&c.Top, 3}, {&c.QueueSize, 256}, {&c.Workers, 2}, {&c.MaxAttempts, 20}, {&c.BreakerFailures, 5}, {&c.ResendAttempts, 3}}
	for _, i := range ints {
		if *i.v <= 0 {
			*i.v = i.d
		}
	}
	if c.MaxBody <= 0 {
		c.MaxBody = 4 << 20
	}
	if c.QueueSize < c.Workers {
		c.QueueSize = c.Workers
	}
	if len(c.ServiceLabels) == 0 {
		c.ServiceLabels = DefaultServiceLabels()
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Sleep == nil {
		c.Sleep = sleepCtx
	}
	return c, nil
}

func httpURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
