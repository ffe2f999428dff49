package sim

import (
	"strings"
	"time"
)

// system holds the parts of a seed system that its faults and mechanisms
// act on.
type system struct {
	// routing
	monitor    *node            // the health monitor (a Durable Object)
	keys       []string         // provider:region keys
	keyOf      map[*node]string // the key of a regional API or instance pool
	regionAPIs []*node          // the cloud providers' regional APIs
	instances  []*node          // the workloads' instances, one pool per region
	d1         *node            // the routing database
	// jobclaim
	claims     *claimConf
	holderDeps []*node // third-party APIs some namespaces' jobs need
	stages     []*node // services some namespaces' jobs need
	// triage
	classifier, model *node
	// payment
	gateway, payments *node
}

// claimConf is the job queue's breaker setting.
type claimConf struct {
	threshold int
	lastReset map[string]time.Time // a namespace's last reset before the simulation; zero none
	resetters []string             // who may reset a breaker
}

// buildSeed builds a seed system, then gives its callers their ways of
// naming callees, its services their startup words and everyday errors.
func (b *builder) buildSeed(topo string) {
	b.g.sys = &system{keyOf: map[*node]string{}}
	switch topo {
	case topoRouting:
		b.buildRouting()
	case topoJobClaim:
		b.buildJobClaim()
	case topoTriage:
		b.buildTriage()
	case topoPayment:
		b.buildPayment()
	}
	noise := seedNoise(topo)
	for _, n := range b.g.nodes {
		if n.logs() {
			n.seedStart = b.r.chance(0.7)
			n.noiseLines = noise
		}
		for _, o := range n.ops {
			for _, e := range append([]*edge{o.branch, o.onFail}, o.calls...) {
				if e != nil && n.logs() && (e.to.role == roleService || e.to.role == roleExternal) {
					e.spell = pickBy(n, 31, []spelling{spellPeer, spellRemote, spellPeerKey, spellPeer})
				}
			}
		}
	}
	b.markNoisy()
	if c := b.g.sys.classifier; c != nil {
		c.noisy = false // it raises no error, ever
	}
}

// external makes a third-party API with the host and path its callers use.
func (b *builder) seedExternal(name, host, path string) *node {
	n := b.newResource(name, roleExternal)
	n.address, n.path = host, path
	return n
}

// plain makes e a holder's call to the queue itself: a plain client (no
// breaker, no bulkhead) whose failure is no failed job.
func plain(e *edge) {
	e.claim, e.breaker, e.bulkhead, e.policy = true, nil, nil, nil
}

// lastEdge is the call o made last.
func lastEdge(o *op) *edge { return o.calls[len(o.calls)-1] }

// keyed gives e a breaker of its own named by key (provider:region).
func (b *builder) keyed(e *edge, key string) {
	br := newBreaker(key, b.r)
	br.keyed, br.minCalls, br.openFor = true, 5, pick(b.r, []time.Duration{30, 45, 60, 60})*time.Second
	e.breaker = br
	if e.policy != nil {
		e.policy.breaker = br
	}
}

// buildRouting builds a cloud routing platform: a router (a Worker) looks a
// workload's endpoint up in KV, then D1, then the health monitor's Durable
// Object state, and forwards to the workload's instances in their region; a
// control API provisions workloads through a provisioner that asks a policy
// proxy, a price feed and the cloud provider's regional API, behind a
// breaker per provider:region.
//
//	router ─▶ kv (hit) │ d1 (ERROR, then DO state) ─▶ kv put ─▶ instances-<provider>-<region>
//	control ─▶ provisioner ─▶ policy, price feed, <provider>-api-<region>, d1, kv, workload-events ─▶ monitor
func (b *builder) buildRouting() {
	r, sys := b.r, b.g.sys
	b.g.namespace = pick(r, []string{"routing", "edge-platform", "control-plane"})
	router := b.newService(pick(r, []string{"edge-router", "route-worker", "ingress-worker", "workload-router"}), roleEntry, 0)
	control := b.newService(pick(r, []string{"control-api", "platform-api", "console-api"}), roleEntry, 0)
	b.g.entries = []*node{router, router, router, control}
	prov := b.newService(pick(r, []string{"provisioner", "fleet-manager", "capacity-broker"}), roleService, 1)
	monitor := b.newService(pick(r, []string{"health-monitor", "workload-state", "instance-watch"}), roleService, 2)
	policy := b.newService(pick(r, []string{"policy-proxy", "guardrail", "cloud-policy"}), roleService, 2)
	b.assignFormats()
	sys.monitor = monitor
	kv := b.newResource(pick(r, []string{"routing-kv", "edge-kv", "endpoints-kv"}), roleCache)
	d1 := b.newResource(pick(r, []string{"routing-d1", "workloads-d1", "control-d1"}), roleDatabase)
	d1.dbSystem, d1.dbName, d1.address = "sqlite", "workload_routing", d1.name+".d1.internal"
	sys.d1 = d1
	price := b.seedExternal(pick(r, []string{"price-feed", "spot-prices-api"}), "prices.feed.example.net", "/v2/spot")
	q := b.newResource(pick(r, []string{"workload-events", "provision-events"}), roleQueue)
	register := &op{owner: monitor, route: "consume " + q.name, self: r.dur(2*time.Millisecond, 10*time.Millisecond)}
	monitor.ops = append(monitor.ops, register)
	q.consumer, b.g.queue = register, q
	state := b.opNamed(monitor, "GET", "/do/{workload}/state")
	check := b.opNamed(policy, "POST", "/v1/policy/evaluate")
	k := r.between(3, 5)
	if b.cfg.Services > 0 {
		k = min(max(b.cfg.Services-4, 2), 8)
	}
	for _, reg := range shuffled(r, cloudRegions())[:k] {
		key := reg[0] + ":" + reg[1]
		sys.keys = append(sys.keys, key)
		api := b.seedExternal(reg[0]+"-api-"+reg[1], reg[2], reg[3])
		pool := b.seedExternal("instances-"+reg[0]+"-"+reg[1], reg[1]+"."+reg[0]+".instances.internal", "/")
		sys.keyOf[api], sys.keyOf[pool] = key, key
		sys.regionAPIs, sys.instances = append(sys.regionAPIs, api), append(sys.instances, pool)

		get := b.opNamed(router, "GET", "/w/{workload}")
		get.hit, get.hitSkip = 0.7+0.2*r.Float64(), 2
		b.addEdge(get, kv, nil)
		b.addEdge(get, d1, nil)
		lookup := lastEdge(get)
		lookup.fallback, lookup.fallbackErr = "Durable Object state", true
		lookup.alt = b.newEdge(get, monitor, state)
		get.calls = append(get.calls, b.newEdge(get, kv, nil)) // put the endpoint back in KV
		b.addEdge(get, pool, nil)
		b.keyed(lastEdge(get), key)

		post := b.opNamed(control, "POST", "/v1/workloads")
		pv := b.opNamed(prov, "POST", "/v1/provision/"+reg[0]+"/"+reg[1])
		b.addEdge(post, prov, pv)
		b.addEdge(pv, policy, check)
		b.addEdge(pv, price, nil)
		lastEdge(pv).fallback = "cached prices"
		b.addEdge(pv, api, nil)
		cloud := lastEdge(pv)
		cloud.attempts, cloud.jitter, cloud.timeout = 3, true, pick(r, []time.Duration{5, 10, 10, 15})*time.Second
		b.keyed(cloud, key)
		b.addEdge(pv, d1, nil)
		b.addEdge(pv, kv, nil)
		b.addEdge(pv, q, register)
	}
	del := b.opNamed(control, "DELETE", "/v1/workloads/{id}")
	drop := b.opNamed(prov, "DELETE", "/v1/workloads/{id}")
	b.addEdge(del, prov, drop)
	b.addEdge(drop, d1, nil)
	b.addEdge(drop, kv, nil)
}

// cloudRegions are a provider, a region, its API's host and path.
func cloudRegions() [][4]string {
	return [][4]string{
		{"aws", "us-east-1", "ec2.us-east-1.amazonaws.com", "/?Action=RunInstances"},
		{"aws", "eu-west-1", "ec2.eu-west-1.amazonaws.com", "/?Action=RunInstances"},
		{"gcp", "us-central1", "compute.googleapis.com", "/compute/v1/projects/fleet/zones/us-central1-a/instances"},
		{"gcp", "europe-west4", "compute.googleapis.com", "/compute/v1/projects/fleet/zones/europe-west4-b/instances"},
		{"azure", "westeurope", "management.azure.com", "/subscriptions/fleet/providers/Microsoft.Compute/virtualMachines?region=westeurope"},
		{"hetzner", "fsn1", "api.hetzner.cloud", "/v1/servers?location=fsn1"},
		{"lambda", "us-tx-1", "cloud.lambdalabs.com", "/api/v1/instance-operations/launch?region=us-tx-1"},
		{"vultr", "ams", "api.vultr.com", "/v2/instances?region=ams"},
	}
}

// buildJobClaim builds a job queue whose holders claim jobs by namespace:
// a pool of holders (the entry) claims from the jobs API, calls the stage
// services and third-party APIs its namespace's jobs need, and completes
// or fails the job; the jobs API computes each namespace's breaker at
// claim time from its audit log (KV for the settings, D1 for the log).
//
//	holder ─▶ jobs-api claim (KV, D1) ─▶ stages…, APIs… ─▶ jobs-api complete │ fail (audit)
//	portal ─▶ jobs-api status ─▶ D1;  complete ─▶ job-events ─▶ notifier ─▶ webhook API
func (b *builder) buildJobClaim() {
	r, sys := b.r, b.g.sys
	b.g.namespace = pick(r, []string{"jobs", "work-queue", "agents"})
	holder := b.newService(pick(r, []string{"job-driver", "agent-runner", "holder-pool", "claim-worker"}), roleEntry, 0)
	b.podsOf(holder, replicaSet(holder), r.between(2, 4))
	holder.access = 0
	portal := b.newService(pick(r, []string{"ops-portal", "jobs-console", "seat-portal"}), roleEntry, 0)
	api := b.newService(pick(r, []string{"jobs-worker", "queue-api", "claims-api", "job-broker"}), roleService, 1)
	k := r.between(3, 4)
	if b.cfg.Services > 0 {
		k = min(max(b.cfg.Services-4, 2), 7)
	}
	var stages []*node
	for _, name := range shuffled(r, []string{"build-runner", "test-runner", "repo-mirror", "doc-indexer", "pkg-cache", "lint-runner", "preview-deployer"})[:k] {
		stages = append(stages, b.newService(name, roleService, 2))
	}
	notifier := b.newService(pick(r, []string{"notifier", "hook-dispatcher", "status-relay"}), roleService, 2)
	b.assignFormats()
	sys.stages = stages
	sys.claims = &claimConf{threshold: r.between(4, 8), lastReset: map[string]time.Time{},
		resetters: pick(r, [][]string{{"the seat", "an admin"}, {"an operator"}, {"the on-call seat", "the owner"}})}

	kv := b.newResource(pick(r, []string{"app-kv", "jobs-kv", "settings-kv"}), roleCache)
	d1 := b.newResource(pick(r, []string{"jobs-d1", "audit-d1", "queue-d1"}), roleDatabase)
	d1.dbSystem, d1.dbName, d1.address = "sqlite", "audit_log", d1.name+".d1.internal"
	claim := b.opNamed(api, "POST", "/v1/jobs/claim")
	claim.gate = true
	b.addEdge(claim, kv, nil)
	b.addEdge(claim, d1, nil)
	complete := b.opNamed(api, "POST", "/v1/jobs/{id}/complete")
	b.addEdge(complete, d1, nil)
	fail := b.opNamed(api, "POST", "/v1/jobs/{id}/fail")
	fail.audit = true
	b.addEdge(fail, d1, nil)
	status := b.opNamed(api, "GET", "/v1/namespaces/{ns}/status")
	b.addEdge(status, kv, nil)
	b.addEdge(status, d1, nil)
	for _, route := range []string{"/namespaces/{ns}", "/needs-you"} {
		b.addEdge(b.opNamed(portal, "GET", route), api, status)
	}

	exts := []*node{
		b.seedExternal(pick(r, []string{"git-host-api", "forge-api"}), "api.forge.example.com", "/repos/acme/app/git/refs"),
		b.seedExternal(pick(r, []string{"artifact-registry", "package-mirror"}), "registry.pkgs.example.org", "/v2/acme/app/blobs/uploads/"),
		b.seedExternal(pick(r, []string{"model-api", "completion-api"}), "api.models.example.ai", "/v1/complete"),
	}
	for i, st := range stages {
		o := b.opNamed(st, "POST", "/v1/"+strings.SplitN(st.name, "-", 2)[0]+"/run")
		b.addEdge(o, exts[i%len(exts)], nil)
		if r.chance(0.4) {
			b.addEdge(o, b.database(strings.SplitN(st.name, "-", 2)[0]), nil)
			st.poolName = pick(r, []string{"HikariPool-1", "primary", st.name + "-pool"})
		}
	}
	q := b.newResource(pick(r, []string{"job-events", "job-status"}), roleQueue)
	relay := &op{owner: notifier, route: "consume " + q.name, self: r.dur(2*time.Millisecond, 10*time.Millisecond)}
	notifier.ops = append(notifier.ops, relay)
	q.consumer, b.g.queue = relay, q
	b.addEdge(relay, b.seedExternal(pick(r, []string{"webhook-relay", "chat-webhooks"}), "hooks.chat.example.com", "/services/T0/B0"), nil)
	b.addEdge(complete, q, relay)

	spaces := shuffled(r, []string{"docs-site", "billing-etl", "mobile-app", "infra-tf", "data-lake", "search-index", "marketing-web"})[:r.between(3, 5)]
	used := map[*node]int{}
	for i, ns := range spaces {
		o := &op{owner: holder, route: "job " + ns, internal: true, ns: ns, self: r.dur(20*time.Millisecond, 200*time.Millisecond)}
		holder.ops = append(holder.ops, o)
		b.addEdge(o, api, claim)
		plain(lastEdge(o))
		for _, st := range []*node{stages[i%len(stages)], pick(r, stages)} {
			b.addEdge(o, st, st.ops[0])
			used[st]++
		}
		if r.chance(0.5) {
			x := exts[(i+1)%len(exts)]
			b.addEdge(o, x, nil)
			used[x]++
		}
		b.addEdge(o, api, complete)
		plain(lastEdge(o))
		o.onFail = b.newEdge(o, api, fail)
		plain(o.onFail)
		if r.chance(0.5) {
			sys.claims.lastReset[ns] = b.cfg.Start.Add(-r.dur(30*time.Minute, 20*time.Hour)).Truncate(time.Second)
		}
	}
	for _, x := range exts {
		if len(b.g.callers(x)) > 0 {
			sys.holderDeps = append(sys.holderDeps, x)
		}
	}
	b.g.entries = []*node{holder, holder, holder, portal}
}

// buildTriage builds an email-triage workflow: the API starts a run, a
// runner consumes it and classifies the message, drafts a reply and asks a
// person to approve it; sending, and refunding, need the approval. A label
// the runner's flow does not know sends it down a branch (the payment
// tool, without an approval) or to a step that refuses it.
//
//	api ─▶ runs db, runs queue ─▶ runner ─▶ classifier ─▶ model API
//	                                     ─▶ drafter ─▶ model API, templates db
//	                                     ─▶ approvals ─▶ approvals db
//	api approve ─▶ approvals ─▶ sender ─▶ mail API;  api refund ─▶ payment tool ─▶ PSP API
func (b *builder) buildTriage() {
	r, sys := b.r, b.g.sys
	b.g.namespace = pick(r, []string{"triage", "mailflow", "support-automation"})
	api := b.newService(pick(r, []string{"triage-api", "mailflow-api", "workflow-gateway"}), roleEntry, 0)
	b.g.entries = []*node{api}
	runner := b.newService(pick(r, []string{"workflow-runner", "triage-engine", "flow-executor"}), roleService, 1)
	classifier := b.newService(pick(r, []string{"classifier", "intent-classifier", "mail-classifier", "label-model"}), roleService, 2)
	drafter := b.newService(pick(r, []string{"drafter", "reply-drafter", "draft-writer"}), roleService, 2)
	approvals := b.newService(pick(r, []string{"approvals", "approval-desk", "review-queue"}), roleService, 2)
	sender := b.newService(pick(r, []string{"sender", "mail-sender", "outbound-mail"}), roleService, 2)
	tool := b.newService(pick(r, []string{"payment-tool", "refund-tool", "payments-tool", "billing-actions"}), roleService, 3)
	b.assignFormats()
	model := b.seedExternal(pick(r, []string{"llm-gateway", "model-api", "inference-provider"}), "api.inference.example.ai", "/v1/chat/completions")
	mail := b.seedExternal(pick(r, []string{"mail-relay", "smtp-provider-api"}), "api.mailrelay.example.com", "/v3/send")
	psp := b.seedExternal(pick(r, []string{"psp-api", "refund-gateway"}), "api.psp.example.com", "/v1/refunds")
	sys.classifier, sys.model = classifier, model

	runs := b.database("runs")
	q := b.newResource(pick(r, []string{"triage-runs", "inbound-mail", "workflow-runs"}), roleQueue)
	consume := &op{owner: runner, route: "consume " + q.name, self: r.dur(5*time.Millisecond, 30*time.Millisecond)}
	runner.ops = append(runner.ops, consume)
	q.consumer, b.g.queue = consume, q
	start := b.opNamed(api, "POST", "/v1/workflows/email-triage/runs")
	b.addEdge(start, runs, nil)
	b.addEdge(start, q, consume)
	b.addEdge(b.opNamed(api, "GET", "/v1/workflows/email-triage/runs/{id}"), runs, nil)

	classify := b.opNamed(classifier, "POST", "/v1/classify")
	classify.labels = []string{"reply", "question", "complaint", "billing", "spam", "reply", "question"}
	b.addEdge(classify, model, nil)
	draft := b.opNamed(drafter, "POST", "/v1/drafts")
	b.addEdge(draft, model, nil)
	b.addEdge(draft, b.database("templates"), nil)
	ask := b.opNamed(approvals, "POST", "/v1/approvals")
	adb := b.database("approvals")
	b.addEdge(ask, adb, nil)
	approvals.poolName = pick(r, []string{"HikariPool-1", "approvals-pool", "primary"})
	b.addEdge(consume, classifier, classify)
	b.addEdge(consume, drafter, draft)
	b.addEdge(consume, approvals, ask)

	decide := b.opNamed(approvals, "POST", "/v1/approvals/{id}/decision")
	b.addEdge(decide, adb, nil)
	send := b.opNamed(sender, "POST", "/v1/send")
	b.addEdge(send, mail, nil)
	refund := b.opNamed(tool, "POST", "/v1/refunds")
	b.addEdge(refund, psp, nil)
	approve := b.opNamed(api, "POST", "/v1/approvals/{id}/approve")
	b.addEdge(approve, approvals, decide)
	b.addEdge(approve, sender, send)
	payout := b.opNamed(api, "POST", "/v1/approvals/{id}/refund")
	b.addEdge(payout, approvals, decide)
	b.addEdge(payout, tool, refund)
	if r.chance(0.7) {
		consume.branch = b.newEdge(consume, tool, refund)
	}
}

// buildPayment builds an order flow whose payments go through a queue: the
// API creates an order (inventory reserved) and publishes it; a payment
// worker charges it through the payment service, which calls the card
// gateway (3 s timeout, retries with jitter, a breaker); a message that
// fails every delivery moves to the dead letter queue and the order is
// cancelled (the saga's compensation).
//
//	api ─▶ orders ─▶ inventory, orders db, orders queue ─▶ payment worker ─▶ payments ─▶ db, fx API, card gateway
//	                                                                    └▶ orders confirm, notifier;  DLQ ─▶ orders cancel ─▶ inventory release
func (b *builder) buildPayment() {
	r, sys := b.r, b.g.sys
	b.g.namespace = pick(r, []string{"payments", "commerce", "checkout"})
	api := b.newService(pick(r, []string{"checkout-api", "order-gateway", "shop-bff"}), roleEntry, 0)
	b.g.entries = []*node{api}
	orders := b.newService(pick(r, []string{"order-service", "orders", "order-manager"}), roleService, 1)
	inventory := b.newService(pick(r, []string{"inventory-service", "stock", "inventory"}), roleService, 2)
	worker := b.newService(pick(r, []string{"payment-worker", "payment-consumer", "charge-worker"}), roleService, 2)
	b.podsOf(worker, replicaSet(worker), r.between(1, 2))
	payments := b.newService(pick(r, []string{"payment-service", "payments", "payment-processor"}), roleService, 3)
	notifier := b.newService(pick(r, []string{"notification-service", "notifier", "mailer"}), roleService, 3)
	b.assignFormats()
	gw := pick(r, [][2]string{{"card-gateway", "api.cardgateway.io"}, {"psp-gateway", "gateway.psp.example.net"}, {"acquirer-api", "api.acquirer.example.com"}})
	gateway := b.seedExternal(gw[0], gw[1], "/v1/charges")
	fx := b.seedExternal(pick(r, []string{"fx-rates-api", "fx-rates"}), "api.fxrates.example.org", "/latest")
	sys.gateway, sys.payments = gateway, payments

	odb, pdb, idb := b.database("orders"), b.database("payments"), b.database("inventory")
	orders.poolName = pick(r, []string{"HikariPool-1", "orders-pool", "primary"})
	payments.poolName = pick(r, []string{"HikariPool-1", "payments-pool", "primary"})
	inventory.poolName = pick(r, []string{"HikariPool-1", "stock-pool", "primary"})
	q := b.newResource(pick(r, []string{"orders", "order-events", "payment-requests"}), roleQueue)
	q.maxDelivery = pick(r, []int{5, 5, 4, 3})
	q.deadLetter = q.name + pick(r, []string{"-dlq", ".DLT", "-dead-letter"})
	consume := &op{owner: worker, route: "consume " + q.name, self: r.dur(3*time.Millisecond, 20*time.Millisecond)}
	worker.ops = append(worker.ops, consume)
	q.consumer, b.g.queue = consume, q

	reserve := b.opNamed(inventory, "POST", "/v1/reservations")
	b.addEdge(reserve, idb, nil)
	release := b.opNamed(inventory, "DELETE", "/v1/reservations/{id}")
	b.addEdge(release, idb, nil)
	create := b.opNamed(orders, "POST", "/v1/orders")
	b.addEdge(create, inventory, reserve)
	b.addEdge(create, odb, nil)
	b.addEdge(create, q, consume)
	get := b.opNamed(orders, "GET", "/v1/orders/{id}")
	b.addEdge(get, odb, nil)
	confirm := b.opNamed(orders, "POST", "/v1/orders/{id}/confirm")
	b.addEdge(confirm, odb, nil)
	cancel := b.opNamed(orders, "POST", "/v1/orders/{id}/cancel")
	b.addEdge(cancel, odb, nil)
	b.addEdge(cancel, inventory, release)
	b.addEdge(b.opNamed(api, "POST", "/v1/checkout"), orders, create)
	b.addEdge(b.opNamed(api, "GET", "/v1/orders/{id}"), orders, get)

	charge := b.opNamed(payments, "POST", "/v1/payments")
	b.addEdge(charge, pdb, nil)
	b.addEdge(charge, fx, nil)
	b.addEdge(charge, gateway, nil)
	g := lastEdge(charge)
	g.timeout, g.attempts, g.jitter, g.fallback = 3*time.Second, r.between(2, 3), r.chance(0.8), ""
	if g.breaker == nil {
		g.breaker = newBreaker(camel(baseName(gateway)), r)
		g.policy.breaker = g.breaker
	}
	b.addEdge(consume, payments, charge)
	pay := lastEdge(consume)
	pay.timeout, pay.attempts, pay.fallback = pick(r, []time.Duration{4, 10, 12})*time.Second, 1, "" // a charge has no default
	b.addEdge(consume, orders, confirm)
	notify := b.opNamed(notifier, "POST", "/v1/notifications")
	b.addEdge(notify, b.seedExternal(pick(r, []string{"sms-relay", "push-relay"}), "api.pushrelay.example.com", "/v1/messages"), nil)
	b.addEdge(consume, notifier, notify)
	q.compensation = b.newEdge(consume, orders, cancel)
}

// seedNoise are the everyday errors of a seed system's services.
func seedNoise(topo string) []string {
	switch topo {
	case topoRouting:
		return []string{"KV read for workload endpoint returned a value older than 60s (propagation), using it",
			"price feed snapshot is 95s old, serving cached prices", "policy proxy blocked request: instance type not allowed for tenant",
			"failed to post usage to billing: 429 Too Many Requests", "instance metadata lookup failed: i-0 not found", "websocket closed by client before upgrade"}
	case topoJobClaim:
		return []string{"holder heartbeat late by 40s, extending lease", "claim raced with another holder, retrying with the next job",
			"diff too large for inline review, attaching as artifact", "webhook delivery failed: 410 Gone", "KV write throttled, retrying",
			"job body checksum mismatch, refusing the corrupt body"}
	case topoTriage:
		return []string{"message has no plain-text part, using html", "attachment over 10 MB skipped", "draft exceeded token budget, truncated",
			"duplicate message-id, skipping", "unsubscribe link missing in template", "spam score 7.2 over 6.0, parking message"}
	case topoPayment:
		return []string{"card declined: insufficient_funds", "3-D Secure challenge abandoned by customer", "idempotency key replayed, returning the stored response",
			"fx rate for XOF missing, using yesterday's", "webhook signature mismatch, ignoring event", "order total below minimum charge"}
	}
	return nil
}
