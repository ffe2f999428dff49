package web

import (
	"context"
	"fmt"
	"net/http"
	"runtime/debug"

	"github.com/faultline/faultline/correlate"
	"github.com/faultline/faultline/rootcause"
	"github.com/faultline/faultline/runbookgen"
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
	c.JSON(http.StatusOK, capTimeline(res, s.cfg.MaxAPITimelineRows))
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
	in, err := parseIncidentQuery(c.Request.URL.Query(), now, s.cfg.MaxWindow)
	if err != nil {
		return nil, in, err
	}
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

// analyse runs the backend's analysis of q once for every request that
// asks for it meanwhile: during an outage several people open the same
// incident at once, on a machine already busy, and each would otherwise
// start an analysis of its own. The shared analysis is detached from the
// request that started it, which the others may outlive, and has the
// same time limit; a request stops waiting at its own deadline. The
// result is cached (see reportCache). A panic in the backend becomes an
// error: it happens on a goroutine no middleware recovers.
func (s *server) analyse(ctx context.Context, q IncidentQuery) (*rootcause.Report, error) {
	key := fmt.Sprintf("%d %d %d %q", q.From.UnixNano(), q.To.UnixNano(), q.Top, q.Service)
	ch := s.analyses.DoChan(key, func() (v any, err error) {
		defer func() {
			if p := recover(); p != nil {
				s.log.Error("panic analysing incident", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				v, err = nil, errPanic
			}
		}()
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.RequestTimeout)
		defer cancel()
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
	select {
	case r := <-ch:
		if r.Err != nil {
			return nil, r.Err
		}
		return r.Val.(*rootcause.Report), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// trace parses the id and asks the backend.
func (s *server) trace(c *gin.Context) (*correlate.Result, error) {
	id, err := parseTraceID(c.Param("id"))
	if err != nil {
		return nil, err
	}
	res, err := s.backend.Trace(c.Request.Context(), id)
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

// capTimeline returns res with at most max timeline entries, noting the cut
// in Warnings. res itself is not modified.
func capTimeline(res *correlate.Result, max int) *correlate.Result {
	if len(res.Timeline) <= max {
		return res
	}
	cp := *res
	cp.Timeline = res.Timeline[:max]
	cp.Warnings = append(append([]string(nil), res.Warnings...),
		fmt.Sprintf("timeline truncated to the first %d of %d records", max, len(res.Timeline)))
	return &cp
}
