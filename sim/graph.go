package sim

import (
	"time"
)

// role is what a node of the graph is.
type role uint8

const (
	roleService  role = iota // a business service that logs
	roleEntry                // an entry point (gateway, BFF) that logs
	roleDatabase             // a database, seen only through its clients
	roleCache                // a cache, seen only through its clients
	roleQueue                // a message queue (topic), with one consumer service
	roleExternal             // a third-party API, seen only through its callers
)

// stack is the runtime and framework family of a service: it decides the
// wording of its messages and which log formats it may use.
type stack uint8

const (
	stackGo stack = iota
	stackJava
	stackPython
	stackNode
)

// graph is the topology of one simulated system.
type graph struct {
	nodes   []*node // every node, in creation order
	entries []*node
	queue   *node // the queue, whose consumer is queue.consumer
	ids64   bool  // trace ids are 64-bit (a Datadog-era system)
	// topology is the shape the graph was built in (Topologies); namespace
	// is the Kubernetes namespace its pods run in.
	topology, namespace string
	sys                 *system // a seed system's parts (seed_build.go); nil in the generic shapes
}

// node is one service or resource of the graph.
type node struct {
	name        string
	role        role
	level       int
	stack       stack
	format      format
	viaLoki     bool // JSON or text lines shipped to Loki rather than to a file
	gzipped     bool // its file is gzipped
	traced      bool // it exports spans
	noisy       bool // it logs ERROR all the time, fault or not
	flavor      int  // picks the wording variant of its messages
	versions    [2]string
	pods        []*pod
	ops         []*op
	deps        []*node       // distinct nodes it calls
	dbSystem    string        // databases: postgresql, mysql, mongodb
	poolName    string        // services with a database: the pool's name in logs
	poolTimeout time.Duration // its acquire timeout
	consumer    *op           // queues: the operation that consumes them
	access      int           // 0 no access log, 1 INFO always, 2 level by status
	app         string        // Java services: the application class name
	dbName      string        // databases outside the shop: db.name on client spans
	address     string        // databases outside the shop: server.address on client spans; seed systems' APIs: their host
	// The seed systems' additions (seed_*.go); zero elsewhere.
	path         string   // seed systems' APIs: the path their callers' URLs take
	noiseLines   []string // the everyday errors it logs, instead of the common ones
	seedStart    bool     // it announces its version at startup in its own words ("X v1.2.3 started")
	maxDelivery  int      // queues: deliveries of a message before the dead letter queue; 0 none
	deadLetter   string   // queues: where a message goes after maxDelivery failed deliveries
	compensation *edge    // queues: the consumer's saga compensation after a message is dead-lettered
}

// pod is one instance of a service, on a host with its own clock skew.
type pod struct {
	name, host, ip string
	skew           time.Duration
	deployAt       time.Time // when it switched to versions[1]; zero never
	attrs          [2]map[string]string
	// from and until bound the pod's life (a rolling deploy's new and old
	// pods); zero is unbounded.
	from, until time.Time
}

// op is one operation a service serves and the calls it makes.
type op struct {
	owner    *node
	method   string // HTTP method, "" for gRPC and consumers
	route    string // HTTP route, gRPC method or "consume <queue>"
	calls    []*edge
	parallel bool // calls run concurrently (fan-out)
	self     time.Duration
	chatter  []string // INFO lines it writes
	hit      float64  // share of requests its first call, a cache, answers (the rest go on); 0 none
	// The seed systems' additions (seed_*.go); zero elsewhere.
	hitSkip  int      // on a cache hit, how many following calls it skips (0: a hit answers the request)
	internal bool     // a loop of the service's own (a holder's job), not a request it serves
	ns       string   // the namespace its requests belong to (a holder's jobs)
	gate     bool     // it refuses claims while its namespace's breaker is open
	audit    bool     // it writes a holder's failed job to the audit log
	onFail   *edge    // the call that reports a failed job (the holder's fail), made when a call fails
	labels   []string // a classifier's answers; its callers act on them
	branch   *edge    // the call a workflow makes when its classifier answers a label it did not know
}

// edge is a call from an operation to a node, with its resilience policy.
type edge struct {
	from     *node
	to       *node
	toOp     *op // the callee's operation (services and queue consumers)
	timeout  time.Duration
	attempts int
	backoff  time.Duration
	jitter   bool
	breaker  *breaker
	bulkhead *bulkhead
	fallback string // what the caller falls back to; "" none
	client   string // the client's name in logs (class, breaker name)
	policy   *edgePolicy
	alt      *edge    // the call made instead when this one fails (a fallback backend); nil none
	spell    spelling // how the caller names the callee in its attributes
	// The seed systems' additions (seed_*.go); zero elsewhere.
	fallbackErr bool // the fallback is logged at ERROR, as a console.error before the next source
	claim       bool // a holder's call to the queue itself (claim, complete): its failure is no failed job
}

// spelling is how a caller names its callee in its spans' and logs'
// attributes: peer.service (the default), server.address, or only the URL.
type spelling uint8

const (
	spellPeer spelling = iota
	spellAddress
	spellURL
	spellRemote  // remote.service, as some JSON loggers name a callee
	spellPeerKey // peer
)

// edgePolicy is what all edges between two nodes share: one breaker, one bulkhead.
type edgePolicy struct {
	breaker  *breaker
	bulkhead *bulkhead
}

// name of an operation as a span name.
func (o *op) spanName() string {
	if o.method == "" {
		return o.route
	}
	return o.method + " " + o.route
}

// logs reports whether the node writes logs of its own.
func (n *node) logs() bool { return n.role == roleService || n.role == roleEntry }

// pickPod returns one of the node's pods.
func (n *node) pickPod(r rng) *pod { return n.pods[r.IntN(len(n.pods))] }

// live reports whether the pod serves at true time t.
func (p *pod) live(t time.Time) bool {
	return (p.from.IsZero() || !t.Before(p.from)) && (p.until.IsZero() || t.Before(p.until))
}

// version is the pod's version at true time t.
func (p *pod) version(t time.Time) int {
	if !p.deployAt.IsZero() && !t.Before(p.deployAt) {
		return 1
	}
	return 0
}

// callers returns the edges into n.
func (g *graph) callers(n *node) []*edge {
	var out []*edge
	for _, m := range g.nodes {
		for _, o := range m.ops {
			for _, e := range o.calls {
				if e.to == n {
					out = append(out, e)
				}
			}
		}
	}
	return out
}

// services returns the nodes that log, in creation order.
func (g *graph) services() []*node {
	var out []*node
	for _, n := range g.nodes {
		if n.logs() {
			out = append(out, n)
		}
	}
	return out
}
