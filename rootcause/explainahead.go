package rootcause

import (
	"fmt"

	"github.com/faultline/faultline/correlate"
	"github.com/faultline/faultline/schema"
)

// A window's failing traces are explained one after the other
// (analyzeTraces): each trace's own analysis (correlate.AnalyzeRecords,
// pure) is most of it, and the votes, the store rules and what is learnt
// of the trace must go in order. So the traces are read, and their own
// analyses made, on another core, a few traces ahead of the loop that
// takes them in order: on the 1M-record incident of scripts/bench.sh,
// after the baseline's read, nothing else ran beside that loop.

// aheadTraces is how many traces, with their analyses, wait for the loop.
const aheadTraces = 32

// ahead is one held trace: its records, in the order each gives them,
// and, when it holds an error (anyError), its own analysis.
type ahead struct {
	recs []schema.Record
	res  *correlate.Result
	// panicked is what the analysis panicked with, given again on the
	// loop's goroutine (where the web's and the MCP server's recovery are).
	panicked any
}

// eachExplained calls f with each held trace of l, in l.each's order, and
// its own analysis (nil for a trace without an error), made with opts on
// another goroutine ahead of f. recs is f's only until it returns.
func (l *loaded) eachExplained(opts correlate.Options, f func(recs []schema.Record, res *correlate.Result)) {
	out := make(chan ahead, aheadTraces)
	free := make(chan []schema.Record, aheadTraces+2)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		defer close(out)
		defer func() {
			if v := recover(); v != nil {
				select {
				case out <- ahead{panicked: fmt.Errorf("explaining a window's trace: %v", v)}:
				case <-stop: // the loop has ended (it panicked itself)
				}
			}
		}()
		l.traces.eachIn(l.take, func() []schema.Record {
			select {
			case b := <-free:
				return b[:0]
			default:
				return nil
			}
		}, func(recs []schema.Record) bool {
			a := ahead{recs: recs}
			if anyError(recs) {
				a.res = correlate.AnalyzeRecords(recs, opts)
			}
			select {
			case out <- a:
				return true
			case <-stop:
				return false
			}
		})
	}()
	for a := range out {
		if a.panicked != nil {
			panic(a.panicked)
		}
		f(a.recs, a.res)
		select {
		case free <- a.recs:
		default:
		}
	}
}
