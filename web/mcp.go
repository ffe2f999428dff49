package web

import (
	"context"
	"fmt"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/faultline/faultline/correlate"
	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/runbookgen"
	"github.com/faultline/faultline/schema"
)

// ErrBusy is wrapped by a PooledBackend call refused because the running
// analyses and the queue are full (the API's 503): retry in a few seconds.
var ErrBusy = errBusy

// pooledBackend is the Backend handed to Config.MCP: the same bounded
// analyses as the pages and the API (one pool, one cache, the request
// timeout), so an assistant asking over /mcp cannot run more than the
// server allows.
type pooledBackend struct{ s *server }

var _ Backend = pooledBackend{}

// Incident answers from the report cache or runs the analysis in the pool.
// Top is capped at Config.MaxAPICandidates.
func (p pooledBackend) Incident(ctx context.Context, q IncidentQuery) (*rootcause.Report, error) {
	if q.Top <= 0 || q.Top > p.s.cfg.MaxAPICandidates {
		q.Top = p.s.cfg.MaxAPICandidates
	}
	if rep, ok := p.s.reports.get(q); ok {
		return rep, nil
	}
	return p.s.analyse(ctx, q)
}

// Trace runs the trace analysis in the pool; the timeline is capped as
// the API caps it.
func (p pooledBackend) Trace(ctx context.Context, id schema.TraceID) (*correlate.Result, error) {
	res, err := p.s.analyseTrace(ctx, id)
	if err != nil {
		return nil, err
	}
	if res == nil {
		return nil, fmt.Errorf("trace %s: %w", id, errNilDocument)
	}
	return res.CapTimeline(p.s.cfg.MaxAPITimelineRows), nil
}

// Runbook loads a runbook within the request timeout.
func (p pooledBackend) Runbook(ctx context.Context, id string) (*runbookgen.Runbook, error) {
	ctx, cancel := context.WithTimeout(ctx, p.s.cfg.RequestTimeout)
	defer cancel()
	return p.s.backend.Runbook(ctx, id)
}

// poolJob keys one Do in the pool: never shared with another request.
type poolJob struct{ _ byte }

// Do runs f in the pages' analysis pool, as an analysis: a slot, or a
// place in the queue (ErrBusy past it), within the request timeout. It is
// for work as heavy as an analysis that is not one (the patterns tool
// grouping a pasted log).
func (p pooledBackend) Do(ctx context.Context, f func(context.Context) error) error {
	_, err := p.s.pool.do(ctx, &poolJob{}, p.s.cfg.RequestTimeout, func(c context.Context) (any, error) { return nil, f(c) })
	return err
}

// mountMCP mounts Config.MCP's handler at /mcp behind requireCredentials
// and the standard library's cross-origin protection (a browser page on
// another site cannot post to it).
func (s *server) mountMCP(r *gin.Engine) {
	h := http.NewCrossOriginProtection().Handler(s.cfg.MCP(pooledBackend{s}))
	r.Any("/mcp", s.requireCredentials, gin.WrapH(h))
}

// requireCredentials is requireAuthStrict without the session cookie: a
// machine endpoint that acts (an assistant's tool calls) takes only
// credentials a browser never sends by itself.
func (s *server) requireCredentials(c *gin.Context) {
	if !s.cfg.authEnabled() || s.credentialed(c.Request) {
		c.Next()
		return
	}
	s.refuseStrict(c)
}
