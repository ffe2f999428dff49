package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/faultline/faultline/correlate"
	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/runbookgen"
	"github.com/faultline/faultline/schema"
	"github.com/gin-gonic/gin"
)

// apiIncident serves GET /api/v1/incident: the incident Report.
func (s *server) apiIncident(c *gin.Context) {
	rep, _, err := s.incident(c, s.cfg.MaxAPICandidates)
	if err != nil {
		s.fail(c, err)
		return
	}
	c.Header("Cache-Control", "no-store")
	c.JSON(http.StatusOK, rep)
}

// apiTrace serves GET /api/v1/trace/ID: the trace Result.
func (s *server) apiTrace(c *gin.Context) {
	res, err := s.trace(c)
	if err != nil {
		s.fail(c, err)
		return
	}
	c.Header("Cache-Control", "no-store")
	c.JSON(http.StatusOK, res.CapTimeline(s.cfg.MaxAPITimelineRows))
}

// apiRunbook serves GET /api/v1/runbooks/ID: the Runbook.
func (s *server) apiRunbook(c *gin.Context) {
	rb, err := s.runbook(c, c.Param("id"))
	if err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, rb)
}

// incident parses the window and asks the backend, capping candidates at max.
func (s *server) incident(c *gin.Context, max int) (*rootcause.Report, windowInput, error) {
	now := s.cfg.Now().UTC()
	if s.cfg.CacheTTL > 0 {
		now = now.Truncate(s.cfg.CacheTTL)
	}
	v, note := s.withDefaultWindow(c.Request.Context(), c.Request.URL.Query(), now)
	in, err := parseIncidentQuery(v, now, s.cfg.MaxWindow)
	if err != nil {
		return nil, in, err
	}
	in.Note = note
	if in.Query.Top == 0 || in.Query.Top > max {
		in.Query.Top = max
	}
	if rep, ok := s.reports.get(in.Query); ok {
		return rep, in, nil
	}
	rep, err := s.analyse(c.Request.Context(), in.Query)
	if err != nil {
		return nil, in, fmt.Errorf("cannot analyse incident window: %w", err)
	}
	return rep, in, nil
}

// analyse runs the backend's analysis of q through the pool: one
// analysis for every request that asks for the same q meanwhile (during an
// outage several people open the same incident at once, on a machine
// already busy), a bounded number of analyses at once, and a 503 past the
// queue. The analysis has the request timeout of its own and ends when
// the last request waiting for it leaves. The result is cached (see
// reportCache).
func (s *server) analyse(ctx context.Context, q IncidentQuery) (*rootcause.Report, error) {
	v, err := s.pool.do(ctx, q, s.cfg.RequestTimeout, func(actx context.Context) (any, error) {
		rep, err := s.backend.Incident(actx, q)
		if err != nil {
			return nil, err
		}
		if rep == nil {
			rep = &rootcause.Report{Window: rootcause.Window{From: q.From, To: q.To}}
		}
		if rep.Candidates == nil {
			rep.Candidates = []rootcause.Candidate{}
		}
		s.reports.put(q, rep)
		return rep, nil
	})
	if errors.Is(err, errPanic) {
		s.log.Error("panic analysing incident", "panic", err.Error())
		return nil, errPanic
	}
	rep, _ := v.(*rootcause.Report)
	return rep, err
}

// traceKey is a trace analysis's key in the pool.
type traceKey struct{ id schema.TraceID }

// analyseTrace runs the backend's trace analysis through the same pool as
// the incidents: bounded (503 past the queue), and one analysis for
// every request for the same trace meanwhile.
func (s *server) analyseTrace(ctx context.Context, id schema.TraceID) (*correlate.Result, error) {
	v, err := s.pool.do(ctx, traceKey{id}, s.cfg.RequestTimeout, func(actx context.Context) (any, error) {
		res, err := s.backend.Trace(actx, id)
		if err != nil {
			return nil, err
		}
		return res, nil
	})
	if errors.Is(err, errPanic) {
		s.log.Error("panic analysing trace", "panic", err.Error())
		return nil, errPanic
	}
	res, _ := v.(*correlate.Result)
	return res, err
}

// trace parses the id and asks the backend.
func (s *server) trace(c *gin.Context) (*correlate.Result, error) {
	id, err := parseTraceID(c.Param("id"))
	if err != nil {
		return nil, err
	}
	res, err := s.analyseTrace(c.Request.Context(), id)
	if err != nil {
		return nil, fmt.Errorf("cannot load trace %s: %w", id, err)
	}
	if res == nil {
		return nil, fmt.Errorf("trace %s: %w", id, errNilDocument)
	}
	return res, nil
}

// runbook validates the id and asks the backend.
func (s *server) runbook(c *gin.Context, raw string) (*runbookgen.Runbook, error) {
	id, err := parseRunbookID(raw)
	if err != nil {
		return nil, err
	}
	rb, err := s.backend.Runbook(c.Request.Context(), id)
	if err != nil {
		return nil, fmt.Errorf("cannot load runbook %q: %w", id, err)
	}
	if rb == nil {
		return nil, fmt.Errorf("runbook %q: %w", id, errNilDocument)
	}
	return rb, nil
}
