package sim

import (
	"strings"
	"time"
)

// The two topologies besides the shop. Both build their graph by hand,
// with names from their own vocabulary (names_topo.go), and give every
// fault kind something to act on: a third-party API with several callers,
// databases with pools, a queue with its consumer, services with callers.

// buildJobQueue builds an API that enqueues jobs on a queue, a pool of
// workers consuming it that call a few stage services, a database and a
// third-party store, and an audit-log service every worker writes to.
//
//	api ─POST /v1/jobs─▶ tenants ─▶ cache, db
//	    └─▶ <word>-jobs ─▶ <word>-worker ─▶ stages…, jobs db, store API, audit-log ─▶ audit db
//	api ─GET /v1/jobs/{id}─▶ status ─▶ jobs db (and the store API for result links)
func (b *builder) buildJobQueue() {
	r := b.r
	b.g.namespace = pick(r, []string{"batch", "pipeline", "jobs"})
	word := pick(r, jobWords())
	api := b.newService(pick(r, jobAPINames()), roleEntry, 0)
	b.g.entries = []*node{api}
	tenants := b.newService(pick(r, jobTenantNames()), roleService, 1)
	status := b.newService(pick(r, jobStatusNames()), roleService, 1)
	worker := b.newService(word+"-worker", roleService, 2)
	b.podsOf(worker, replicaSet(worker), r.between(2, 4)) // a pool of workers
	k := r.between(2, 4)
	if b.cfg.Services > 0 {
		k = min(max(b.cfg.Services-5, 2), 8)
	}
	var stages []*node
	for _, name := range shuffled(r, jobStageNames())[:k] {
		stages = append(stages, b.newService(name+pick(r, []string{"", "-d", "-srv", "", "-core"}), roleService, 3))
	}
	audit := b.newService(pick(r, jobAuditNames()), roleService, 3)
	b.assignFormats()

	submit := b.opNamed(api, "POST", "/v1/jobs")
	get := b.opNamed(api, "GET", "/v1/jobs/{id}")
	result := b.opNamed(api, "GET", "/v1/jobs/{id}/result")
	quota := b.opNamed(tenants, "GET", "/internal/tenants/{id}/quota")
	state := b.opNamed(status, "GET", "/v1/status/{id}")
	link := b.opNamed(status, "GET", "/v1/results/{id}/link")
	record := b.opNamed(audit, "POST", "/v1/audit/events")
	for i, n := range stages {
		n.ops = append(n.ops, b.newOp(n, i))
	}

	q := b.newResource(word+"-jobs", roleQueue)
	consume := &op{owner: worker, route: "consume " + q.name, self: r.dur(5*time.Millisecond, 40*time.Millisecond)}
	worker.ops = append(worker.ops, consume)
	q.consumer, b.g.queue = consume, q

	b.addEdge(submit, tenants, quota)
	b.addEdge(submit, q, consume)
	b.addEdge(get, status, state)
	b.addEdge(result, status, link)
	b.addEdge(link, tenants, quota) // is the tenant entitled to a download link
	b.addEdge(quota, b.newResource("redis-"+strings.Split(tenants.name, "-")[0], roleCache), nil)
	tdb := b.database("tenants")
	b.addEdge(quota, tdb, nil)
	tenants.poolName = pick(r, []string{"HikariPool-1", "tenants-pool", "primary"})
	jobsDB := b.database(word + "jobs")
	b.addEdge(state, jobsDB, nil)
	b.addEdge(link, jobsDB, nil)
	status.poolName = pick(r, []string{"HikariPool-1", "jobstate-pool", "primary"})

	store := b.newResource(pick(r, jobExternalNames()), roleExternal)
	b.addEdge(link, store, nil)
	for i, n := range stages {
		o := n.ops[0]
		b.addEdge(consume, n, o)
		switch {
		case i == 0:
			b.addEdge(o, store, nil) // fetches the job's input
		case r.chance(0.5):
			b.addEdge(o, b.database(baseName(n)), nil)
			n.poolName = pick(r, []string{"HikariPool-1", baseName(n) + "-pool", "primary"})
		}
	}
	b.addEdge(consume, jobsDB, nil)
	worker.poolName = pick(r, []string{"HikariPool-1", word + "-pool", "primary"})
	b.addEdge(consume, store, nil)
	b.addEdge(consume, audit, record)
	b.addEdge(record, b.database("audit"), nil)
	audit.poolName = pick(r, []string{"HikariPool-1", "audit-pool", "primary"})
	b.markNoisy()
}

// buildEdge builds an edge router in front of backends: each route checks
// a token, looks in a cache (a hit answers at once), and on a miss calls
// its backend, some with a fallback backend when the backend fails.
// Backends call a resolver, databases and a third-party API, and publish
// invalidations a purger consumes.
//
//	router ─▶ token-check ─▶ db
//	       ─▶ cache (hit: done)
//	       ─▶ <x>-origin ─▶ resolver ─▶ db; db; vendor API   (fails over to static-fallback)
//	<x>-origin ─▶ invalidations ─▶ purger ─▶ cache
func (b *builder) buildEdge() {
	r := b.r
	b.g.namespace = pick(r, []string{"edge", "cdn", "delivery-edge"})
	router := b.newService(pick(r, edgeRouterNames()), roleEntry, 0)
	b.g.entries = []*node{router}
	auth := b.newService(pick(r, edgeAuthNames()), roleService, 1)
	k := r.between(3, 5)
	if b.cfg.Services > 0 {
		k = min(max(b.cfg.Services-4, 2), 10)
	}
	var backends []*node
	words := shuffled(r, edgeBackendWords())[:k]
	for _, w := range words {
		backends = append(backends, b.newService(w+pick(r, edgeBackendSuffixes()), roleService, 2))
	}
	mirror := b.newService(pick(r, edgeMirrorNames()), roleService, 2)
	resolver := b.newService(pick(r, edgeResolverNames()), roleService, 3)
	purger := b.newService(pick(r, edgePurgerNames()), roleService, 3)
	b.assignFormats()

	verify := b.opNamed(auth, "POST", "/v1/tokens/verify")
	b.addEdge(verify, b.database("keys"), nil)
	auth.poolName = pick(r, []string{"HikariPool-1", "keys-pool", "primary"})
	static := b.opNamed(mirror, "GET", "/static/{path}")
	resolve := b.opNamed(resolver, "GET", "/v1/resolve/{key}")
	b.addEdge(resolve, b.database("routes"), nil)
	resolver.poolName = pick(r, []string{"HikariPool-1", "routes-pool", "primary"})
	cache := b.newResource(pick(r, edgeCacheNames()), roleCache)
	vendor := b.newResource(pick(r, edgeExternalNames()), roleExternal)
	q := b.newResource(pick(r, []string{"invalidations", "purge-events", "edge-invalidations"}), roleQueue)
	purge := &op{owner: purger, route: "consume " + q.name, self: r.dur(3*time.Millisecond, 20*time.Millisecond)}
	purger.ops = append(purger.ops, purge)
	q.consumer, b.g.queue = purge, q
	b.addEdge(purge, cache, nil)

	withFallback := 0
	for i, n := range backends {
		read := b.newOp(n, 0)
		read.method, read.route = "GET", "/"+words[i]+"/{id}"
		write := b.newOp(n, 1)
		write.method, write.route = "PUT", "/"+words[i]+"/{id}"
		n.ops = append(n.ops, read, write)
		b.addEdge(read, resolver, resolve)
		if i < 3 || r.chance(0.4) {
			b.addEdge(read, vendor, nil)
		}
		db := b.database(words[i])
		b.addEdge(read, db, nil)
		b.addEdge(write, db, nil)
		n.poolName = pick(r, []string{"HikariPool-1", words[i] + "-pool", "primary"})
		b.addEdge(write, q, purge)

		get := b.opNamed(router, "GET", "/"+words[i]+"/{id}")
		get.hit = 0.25 + 0.5*r.Float64()
		if r.chance(0.7) {
			b.addEdge(get, auth, verify)
		}
		b.addEdge(get, cache, nil)
		b.addEdge(get, n, read)
		if e := get.calls[len(get.calls)-1]; withFallback == 0 || r.chance(0.5) {
			e.alt = b.newEdge(get, mirror, static)
			e.fallback = "response from " + mirror.name
			withFallback++
		}
		put := b.opNamed(router, "PUT", "/"+words[i]+"/{id}")
		b.addEdge(put, auth, verify)
		b.addEdge(put, n, write)
	}
	b.markNoisy()
}

// opNamed adds an HTTP operation to n.
func (b *builder) opNamed(n *node, method, route string) *op {
	o := &op{owner: n, method: method, route: route, self: b.r.dur(2*time.Millisecond, 25*time.Millisecond)}
	n.ops = append(n.ops, o)
	return o
}

// database makes a database for word in the topology's naming style, with
// the db.name and server.address its clients' spans carry.
func (b *builder) database(word string) *node {
	st := pick(b.r, dbStyles())
	n := b.newResource(word+st[0], roleDatabase)
	n.dbSystem, n.dbName = st[1], word
	n.address = n.name + "." + b.g.namespace + ".svc.cluster.local"
	return n
}

// replicaSet is the replica-set hash in the names of n's pods.
func replicaSet(n *node) string {
	rest := strings.TrimPrefix(n.pods[0].name, n.name+"-")
	return rest[:strings.IndexByte(rest, '-')]
}
