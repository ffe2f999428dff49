package enrich

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/runbookgen"
	"github.com/prometheus/client_golang/prometheus"
)

// Errors of Enqueue.
var (
	ErrQueueFull = errors.New("the alert queue is full; retry later")
	ErrClosed    = errors.New("alert enrichment is shutting down")
)

// Analyzer runs the incident analysis of a window; analysis.Engine is one.
// An empty window is rootcause.ErrNoData.
type Analyzer interface {
	Incident(ctx context.Context, q rootcause.Query) (*rootcause.Report, error)
}

// DocStore keeps small documents: the Slack state of each alert group and
// the dead letters. store.Store is one. GetDoc of an absent document wraps
// schema.ErrNotFound.
type DocStore interface {
	PutDoc(ctx context.Context, kind, id string, doc []byte) error
	GetDoc(ctx context.Context, kind, id string) ([]byte, error)
}

// Service receives alert groups, enriches them and delivers them to Slack
// asynchronously. Build it with New; stop it with Close.
type Service struct {
	cfg   Config
	an    Analyzer
	docs  DocStore
	log   *slog.Logger
	m     *metrics
	br    *breaker
	post  PostFunc
	red   redactor
	mopts MessageOptions

	ctx    context.Context // cancelled when Close gives up waiting
	cancel context.CancelFunc
	wg     sync.WaitGroup
	shards []chan *job
	dlMu   sync.Mutex // serialises the dead-letter index

	jMu     sync.Mutex // serialises the accepted-alert journal
	journal []string   // its index: keys of accepted, unsettled alerts

	mu        sync.Mutex
	pending   map[string]bool // dedupe keys queued or in progress
	resending map[string]bool // dead letters being resent by this process
	closed    bool
}

type job struct {
	g        *Group
	key      string
	accepted time.Time // when the hook took it (journalled)
	spent    int       // Slack calls earlier runs made for it
}

// New builds the service and starts its workers. an may be nil (every
// message then says the analysis is unavailable); docs may be nil (no
// dedupe across restarts, no message edits, dead letters only logged).
// reg nil registers no metrics; log nil discards.
func New(cfg Config, an Analyzer, docs DocStore, reg prometheus.Registerer, log *slog.Logger) (*Service, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if !cfg.Configured() {
		return nil, ErrNotConfigured
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	m, err := newMetrics(reg)
	if err != nil {
		return nil, fmt.Errorf("cannot register the enrichment metrics: %w", err)
	}
	s := &Service{cfg: cfg, an: an, docs: docs, log: log, m: m, pending: map[string]bool{}, resending: map[string]bool{},
		red:   newRedactor(cfg.Token, cfg.WebhookURL, cfg.HookToken),
		mopts: MessageOptions{PublicURL: cfg.PublicURL, Top: cfg.Top}}
	s.br = newBreaker(cfg.BreakerFailures, cfg.BreakerCooldown, cfg.Now, func(open bool) {
		if open {
			m.breakerOpen.Set(1)
			log.Warn("Slack is failing; circuit breaker open", "cooldown", cfg.BreakerCooldown)
		} else {
			m.breakerOpen.Set(0)
			log.Info("Slack answers again; circuit breaker closed")
		}
	})
	s.post = s.transport()
	if err := s.loadJournal(context.Background()); err != nil {
		return nil, err
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	per := max(cfg.QueueSize/cfg.Workers, 1)
	for range cfg.Workers {
		ch := make(chan *job, per)
		s.shards = append(s.shards, ch)
		s.wg.Add(1)
		go s.work(ch)
	}
	return s, nil
}

func (s *Service) transport() PostFunc {
	switch {
	case s.cfg.Post != nil:
		return s.cfg.Post
	case s.cfg.Token != "":
		return WebAPIPoster(s.cfg.Token, s.cfg.Channel, s.cfg.APIURL, s.cfg.HTTPClient)
	default:
		return WebhookPoster(s.cfg.WebhookURL, s.cfg.HTTPClient)
	}
}

// Enqueue queues g for delivery, after keeping it in the store's journal
// (so that a crash does not lose it; see Resume). It reports false (and no
// error) when the same group with the same status and alerts is already
// queued: a resend. A full shard is ErrQueueFull; a store that cannot keep
// it, ErrNotKept; after Close, ErrClosed.
func (s *Service) Enqueue(g *Group) (bool, error) {
	key := g.ID + "/" + string(g.Status) + "/" + g.Hash
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false, ErrClosed
	}
	if s.pending[key] {
		s.m.duplicates.Inc()
		return false, nil
	}
	ch := s.shards[shardOf(g.ID, len(s.shards))]
	if len(ch) == cap(ch) {
		return false, ErrQueueFull
	}
	if err := s.journalAdd(key, g); err != nil {
		s.log.Warn("alert not kept in the store; refused", "group", g.ID, "error", err)
		return false, ErrNotKept
	}
	// Only senders hold s.mu and the shard had room: this cannot block.
	ch <- &job{g: g, key: key, accepted: s.cfg.Now()}
	s.pending[key] = true
	s.m.queued.Inc()
	s.m.received.WithLabelValues(string(g.Source), string(g.Status)).Inc()
	return true, nil
}

// shardOf keeps every group on one shard, so its updates stay in order.
func shardOf(id string, n int) int {
	h := fnv.New32a()
	h.Write([]byte(id))
	return int(h.Sum32() % uint32(n))
}

// Close stops taking alerts and waits for the queued ones to be delivered.
// When ctx ends first, the work in progress is cancelled and everything
// not delivered is kept as a dead letter: nothing is dropped silently.
func (s *Service) Close(ctx context.Context) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	for _, ch := range s.shards {
		close(ch)
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
		s.cancel()
		return nil
	case <-ctx.Done():
		s.cancel()
		<-done
		return fmt.Errorf("alert queue not drained before shutdown; the rest was dead-lettered: %w", ctx.Err())
	}
}

func (s *Service) work(ch chan *job) {
	defer s.wg.Done()
	for j := range ch {
		s.m.queued.Dec()
		if s.ctx.Err() != nil {
			s.deadLetter(j.g, nil, "shutdown", "faultline shut down before the message was sent", 0)
		} else {
			s.processJob(s.ctx, j)
		}
		s.journalDone(j.key)
		s.mu.Lock()
		delete(s.pending, j.key)
		s.mu.Unlock()
	}
}

// process delivers one alert group accepted now.
func (s *Service) process(ctx context.Context, g *Group) {
	s.processJob(ctx, &job{g: g, accepted: s.cfg.Now()})
}

// processJob delivers one alert group: dedupe against the stored state,
// analyse, build, post or update, remember, and reply in the message's
// thread when the group changed (see reply). Its delivery budget runs from
// when it was accepted, across restarts.
func (s *Service) processJob(ctx context.Context, j *job) {
	g, now := j.g, s.cfg.Now()
	if j.accepted.IsZero() {
		j.accepted = now
	}
	b := s.deliveryBudget(j.accepted, j.spent)
	if j.key != "" {
		b.onTry = func(n int) { s.journalTries(j, n) }
	}
	st := s.loadState(ctx, g.ID)
	same := st != nil && st.Status == g.Status && st.Hash == g.Hash
	replyOnly := same && st.ReplyDue // updated before a restart; the reply is left
	if same && !replyOnly && now.Sub(st.DeliveredAt) < s.cfg.DedupeWindow {
		s.m.duplicates.Inc()
		s.log.Debug("alert group already delivered; resend dropped", "group", g.ID, "status", g.Status)
		return
	}
	a := Analyze(ctx, s.an, g, now, AnalyzeOptions{LookBack: s.cfg.LookBack,
		MaxWindow: s.cfg.MaxWindow, Timeout: s.cfg.AnalysisTimeout, Top: s.cfg.Top})
	if a.Err != nil {
		s.m.analysisErr.Inc()
		s.log.Warn("alert sent without analysis", "group", g.ID, "service", g.Service, "error", a.Err)
	}
	s.linkAlertRunbook(ctx, g, a.Report)
	opt := s.mopts
	opt.Now = now
	msg := BuildMessage(g, a, opt)
	if replyOnly {
		s.reply(ctx, g, msg, st.Posted, b, now)
		return
	}
	var prev Posted
	if st != nil {
		prev = st.Posted
	}
	posted, attempts, err := s.deliver(ctx, msg, prev, b)
	if err != nil {
		reason := "slack"
		if ctx.Err() != nil {
			reason = "shutdown"
		}
		s.deadLetter(g, msg, reason, err.Error(), attempts)
		return
	}
	action := "posted"
	if prev.TS != "" && posted.TS == prev.TS {
		action = "updated"
	}
	s.m.delivered.WithLabelValues(action).Inc()
	s.log.Info("alert enriched to Slack", "group", g.ID, "status", g.Status, "service", g.Service, "action", action)
	// A change (status or alerts) edited in place also gets a thread reply;
	// the same group firing again after the dedupe window does not.
	due := action == "updated" && !same
	s.saveState(ctx, g, posted, prev, now, due)
	if due {
		b.spent = attempts
		s.reply(ctx, g, msg, posted, b, now)
	}
}

// reply posts msg in the thread of first (the group's message, already
// updated), with what is left of b: one reply per change, its retries and
// dead letter under the same rules as the update. Delivered or
// dead-lettered, the state no longer has it due.
func (s *Service) reply(ctx context.Context, g *Group, msg *Message, first Posted, b budget, now time.Time) {
	thread := Posted{Channel: first.Channel, TS: first.TS}
	_, attempts, err := s.deliver(ctx, msg, Posted{Channel: first.Channel, ThreadTS: first.TS}, b)
	if err != nil {
		reason := "slack"
		if ctx.Err() != nil {
			reason = "shutdown"
		}
		s.deadLetterIn(g, msg, &thread, reason, err.Error(), attempts)
	} else {
		s.m.delivered.WithLabelValues("replied").Inc()
		s.log.Info("alert change replied in the Slack thread", "group", g.ID, "status", g.Status)
	}
	s.saveState(ctx, g, first, first, now, false)
}

// linkAlertRunbook links the alert's own runbook_url from the saved
// runbooks of the candidates shown, so the runbook pages carry it too
// (marked there as a link from the alert, not one of ours).
// Failures only cost that link and are logged.
func (s *Service) linkAlertRunbook(ctx context.Context, g *Group, rep *rootcause.Report) {
	if s.docs == nil || rep == nil || g.RunbookURL == "" {
		return
	}
	for _, c := range rep.Candidates[:min(s.cfg.Top, len(rep.Candidates))] {
		if c.Runbook == nil {
			continue
		}
		rb, err := runbookgen.Load(ctx, s.docs, c.Runbook.ID)
		if err == nil {
			// The latest alert's link replaces an older one, so a bad link
			// does not stay for good once a real alert names another.
			prev := rb.AlertRunbookURL
			if err = rb.LinkAlertRunbook(g.RunbookURL); err == nil && rb.AlertRunbookURL != prev {
				err = runbookgen.Save(ctx, s.docs, rb)
			}
		}
		if err != nil {
			s.log.Debug("alert runbook not linked from ours", "runbook", c.Runbook.ID, "error", err)
		}
	}
}

// budget bounds the delivery of one message: every Slack call counts
// (breaker probes too, so a Slack that keeps failing ends in a dead
// letter rather than being probed until the deadline), spent is what
// earlier runs already used (kept in the journal across restarts), and
// onTry, when set, is told each call's running total.
type budget struct {
	maxTries int
	spent    int
	deadline time.Time
	onTry    func(tries int)
}

// deliveryBudget is the budget of a queued alert accepted at accepted.
func (s *Service) deliveryBudget(accepted time.Time, spent int) budget {
	return budget{maxTries: s.cfg.MaxAttempts, spent: spent, deadline: accepted.Add(s.cfg.DeliveryBudget)}
}

// deliver sends msg with retries, backoff, Retry-After and the breaker,
// within b. It returns the calls made (earlier runs' included). Its errors
// are redacted.
func (s *Service) deliver(ctx context.Context, msg *Message, prev Posted, b budget) (Posted, int, error) {
	deadline := b.deadline
	tries := b.spent
	if tries >= b.maxTries || !s.cfg.Now().Before(deadline) {
		return Posted{}, tries, fmt.Errorf("gave up after %d attempts over the delivery budget of %v", tries, s.cfg.DeliveryBudget)
	}
	for {
		ok, _, wait := s.br.allow()
		if !ok {
			s.m.slackCalls.WithLabelValues("breaker_open").Inc()
			if s.cfg.Now().Add(wait).After(deadline) {
				return Posted{}, tries, errors.New("Slack stayed unavailable (circuit breaker open) past the delivery budget")
			}
			if err := s.cfg.Sleep(ctx, wait); err != nil {
				return Posted{}, tries, err
			}
			continue
		}
		tries++
		if b.onTry != nil {
			b.onTry(tries)
		}
		cctx, cancel := context.WithTimeout(ctx, s.cfg.CallTimeout)
		p, err := s.post(cctx, msg, prev)
		cancel()
		if err == nil {
			s.br.success()
			s.m.slackCalls.WithLabelValues("ok").Inc()
			return p, tries, nil
		}
		kind, after := classify(err)
		rerr := s.red.err(err)
		if ctx.Err() != nil {
			s.br.release()
			return Posted{}, tries, rerr
		}
		wait = s.backoff(tries - b.spent)
		switch kind {
		case outcomePermanent:
			s.br.success()
			s.m.slackCalls.WithLabelValues("refused").Inc()
			return Posted{}, tries, fmt.Errorf("Slack refused the message: %w", rerr)
		case outcomeStale:
			s.br.success()
			s.m.slackCalls.WithLabelValues("stale").Inc()
			prev, wait = Posted{}, 0
		case outcomeRateLimit:
			s.br.success()
			s.m.slackCalls.WithLabelValues("rate_limited").Inc()
			if after > 0 {
				wait = after
			}
		default:
			s.br.failure()
			s.m.slackCalls.WithLabelValues("error").Inc()
		}
		s.log.Warn("Slack call failed", "attempt", tries, "retry_in", wait, "error", rerr)
		if tries >= b.maxTries {
			return Posted{}, tries, fmt.Errorf("gave up after %d attempts: %w", tries, rerr)
		}
		if s.cfg.Now().Add(wait).After(deadline) {
			return Posted{}, tries, fmt.Errorf("delivery budget spent after %d attempts: %w", tries, rerr)
		}
		if err := s.cfg.Sleep(ctx, wait); err != nil {
			return Posted{}, tries, rerr
		}
	}
}

// backoff is exponential with equal jitter: half the step fixed, half
// random, so retries of many alerts do not arrive together.
func (s *Service) backoff(attempt int) time.Duration {
	d := s.cfg.BackoffBase
	for i := 1; i < attempt && d < s.cfg.BackoffMax; i++ {
		d *= 2
	}
	d = min(d, s.cfg.BackoffMax)
	half := d / 2
	return half + time.Duration(rand.Int64N(int64(half)+1))
}

// AnalyzeOptions bound the analysis of an alert's window.
type AnalyzeOptions struct {
	LookBack, MaxWindow time.Duration // see Group.Window
	Timeout             time.Duration // 0: only ctx bounds it
	Top                 int           // candidates asked for (at least 3)
}

// Analyze runs the analysis of g's window. It never fails: the error is
// carried in the result for the message to explain.
func Analyze(ctx context.Context, an Analyzer, g *Group, now time.Time, opt AnalyzeOptions) Analysis {
	from, to := g.Window(now, opt.LookBack, opt.MaxWindow)
	a := Analysis{From: from, To: to}
	if an == nil {
		a.Err = errors.New("no analysis engine")
		return a
	}
	if !to.After(from) {
		from = to.Add(-time.Minute)
		a.From = from
	}
	if opt.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opt.Timeout)
		defer cancel()
	}
	q := rootcause.Query{From: from, To: to, Service: g.Service, Top: max(opt.Top, 3)}
	a.Report, a.Err = an.Incident(ctx, q)
	return a
}
