// Package enrich turns an alert into a Slack message that says where the
// failure likely began.
//
// # Flow
//
// An alert group arrives from Alertmanager (webhook payload version 4) or
// Grafana's unified alerting (ParseAlertmanager, ParseGrafana). Its labels
// name the service, its startsAt (minus a look-back) and now or endsAt make
// the incident window. The analysis of that window (an Analyzer, in
// production analysis.Engine) ranks root-cause candidates; BuildMessage
// renders the alert and the top candidates, their evidence and runbooks as
// Block Kit. When the analysis cannot run the message says so and still
// carries the alert: enrichment never swallows an alert.
//
// # Delivery
//
// Service is the asynchronous path behind POST /hooks/alertmanager and
// POST /hooks/grafana: the hook answers 202 at once and queues the group on
// one of a few ordered shards (a group always lands on the same shard, so
// firing and resolved stay in order). A worker analyses, builds and posts
// with a per-call timeout, retries transient failures with exponential
// backoff and full jitter (honouring Slack's 429 Retry-After), and goes
// through a circuit breaker so a Slack outage is waited out instead of
// hammered. Every Slack call counts against MaxAttempts (breaker probes
// included) and the DeliveryBudget runs from acceptance; both survive a
// restart (the journal entry keeps the count and the acceptance time), so
// a Slack that keeps failing ends in a dead letter, never in retries
// forever. A message that cannot be delivered within them is kept as a
// dead-letter document with its reason and counted in the metrics.
//
// # Durability
//
// Before the hook answers 202 the group is written to a journal in the
// store (journal.go); when the store cannot take it the answer is 503 and
// the notifier retries. The journal entry leaves the index once the group
// is settled: delivered, dropped as a resend, or dead-lettered. After a
// crash Resume queues what is left again (the Slack state turns an alert
// already posted into a dropped resend) or dead-letters what the queue
// cannot take. Dead letters are listed by ListDeadLetters and sent again
// by Resend (analyze dlq, the web's /deadletters page): a few calls within
// a deadline (ResendAttempts, ResendDeadline), the original reason kept,
// and a claim in the store first (claim.go) so parallel resends, from any
// number of processes on the same store, deliver a letter once.
//
// # State
//
// Per alert group one small document remembers the Slack channel and ts of
// its message, the status and a hash of the group's alerts. A copy of the
// same group with the same status and alerts within the dedupe window is
// Alertmanager retrying and is dropped; a later firing updates the message
// (chat.update) and resolution updates it to resolved with the duration.
// A change of the group (its status or its alerts) edited in place is also
// posted as a reply in the message's thread (chat.postMessage with
// thread_ts), as Sentry does; the same group firing again is only an edit.
// One reply per change: it is sent once the edit is delivered, with what is
// left of the same budget (retries, breaker, dead letter; a dead-lettered
// reply is resent as a reply), and the state marks it due until then, so a
// restart in between sends the reply and not the edit again. The ts kept
// in the state is the first message's, so threading survives restarts.
// Incoming webhooks cannot edit nor thread (they give no ts), so there a
// resolution is a new message and nothing is replied.
//
// # Secrets
//
// The Slack token, the webhook URL and the hook token are never logged;
// errors from the transport pass through a redactor before they are logged
// or stored.
package enrich
