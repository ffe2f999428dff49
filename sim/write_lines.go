package sim

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"time"

	"github.com/faultline/faultline/schema"
)

// writeLoki writes the services shipped to Loki as push bodies, one per
// line, each holding the streams of about one second of logs.
func (inc *Incident) writeLoki(dir string) error {
	keep := func(i int) bool {
		n := inc.meta[i].node
		return inc.Records[i].Type == schema.TypeLog && n.format != fmtOTLP && n.viaLoki
	}
	var buf []byte
	return writeLines(filepath.Join(dir, "loki-push.jsonl.gz"), func(emit func([]byte) error) error {
		return inc.batches(keep, func(idx []int) error {
			b, err := json.Marshal(inc.pushBody(idx, &buf))
			if err != nil {
				return err
			}
			return emit(b)
		})
	})
}

type lokiPush struct {
	Streams []lokiStream `json:"streams"`
}

type lokiStream struct {
	Stream map[string]string `json:"stream"`
	Values [][2]string       `json:"values"`
}

func (inc *Incident) pushBody(idx []int, buf *[]byte) lokiPush {
	var body lokiPush
	at := map[*pod]int{}
	for _, i := range idx {
		p := inc.meta[i].pod
		k, ok := at[p]
		if !ok {
			k = len(body.Streams)
			at[p] = k
			body.Streams = append(body.Streams, lokiStream{Stream: lokiLabels(inc.g.namespace, inc.meta[i].node, p)})
		}
		*buf = inc.render((*buf)[:0], i)
		ts := strconv.FormatInt(inc.Records[i].Time.UnixNano(), 10)
		body.Streams[k].Values = append(body.Streams[k].Values, [2]string{ts, string(*buf)})
	}
	return body
}

func lokiLabels(ns string, n *node, p *pod) map[string]string {
	return map[string]string{"service_name": n.name, "pod": p.name, "namespace": ns, "container": n.name, "node": p.host}
}

// writeServiceFiles writes one file per service that logs to a file.
func (inc *Incident) writeServiceFiles(dir string) error {
	for _, n := range inc.g.services() {
		if n.format == fmtOTLP || n.viaLoki {
			continue
		}
		if err := inc.writeServiceFile(dir, n); err != nil {
			return err
		}
	}
	return nil
}

func (inc *Incident) writeServiceFile(dir string, n *node) error {
	name := n.name + ".log"
	if n.format.isJSON() {
		name = n.name + ".jsonl"
	}
	if n.gzipped {
		name += ".gz"
	}
	var buf []byte
	return writeLines(filepath.Join(dir, name), func(emit func([]byte) error) error {
		for i := range inc.Records {
			if inc.meta[i].node != n || inc.Records[i].Type != schema.TypeLog {
				continue
			}
			buf = inc.render(buf[:0], i)
			if err := emit(buf); err != nil {
				return err
			}
		}
		return nil
	})
}

// render appends record i as its service's logger writes it.
func (inc *Incident) render(b []byte, i int) []byte {
	rec, n := &inc.Records[i], inc.meta[i].node
	if n.format.isJSON() {
		return renderJSON(b, n, rec, inc.g.ids64)
	}
	return renderText(b, n, rec)
}

// threadName is a plausible thread name for a Java record.
func threadName(rec *schema.Record) string {
	if rec.TraceID == "" {
		return "main"
	}
	return "http-nio-8080-exec-" + strconv.Itoa(1+int(rec.SpanID[0])%10)
}

func rfc3339ms(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }
