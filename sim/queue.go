package sim

import (
	"time"

	"github.com/faultline/faultline/schema"
)

// publish puts a message on queue e.to and simulates its delivery to the
// consumer; the consumer's span is a child of the producer's span cs.
func (s *sim) publish(sc scope, e *edge, t time.Time, cs schema.SpanID) outcome {
	end := t.Add(s.r.latency(4 * time.Millisecond))
	at := end.Add(s.r.dur(20*time.Millisecond, 1500*time.Millisecond))
	msgID := s.messageID()
	switch {
	case s.p.kind == schema.KindPoisonMessage && s.r.chance(s.p.intensity(at)):
		s.poison(sc.tc, e.to, at, cs, msgID)
	case e.to.maxDelivery > 0:
		s.deliver(sc.tc, e.to, at, cs, msgID)
	default:
		s.serve(sc.tc, e.to.consumer.owner, e.to.consumer, at, cs)
	}
	return outcome{end: end}
}

// poison simulates a message its consumer can never process: the same
// error on every receive, then the move to the dead letter queue.
func (s *sim) poison(tc *traceCtx, q *node, at time.Time, parent schema.SpanID, msgID string) {
	c := q.consumer.owner
	kv := []string{"messaging.message.id", msgID, "messaging.destination.name", q.name}
	for k := 1; k <= s.p.maxReceive; k++ {
		sc := scope{tc: tc, n: c, p: c.pickPod(s.r), span: s.spanID()}
		t := at.Add(time.Duration(k-1) * s.p.visibility).Add(s.r.dur(0, 300*time.Millisecond))
		body, exc := poisonMsg(c, q, msgID, k)
		end := t.Add(s.r.latency(3 * time.Millisecond))
		s.log(sc, line{at: end, sev: schema.SeverityError, logger: logger(c, "messaging"), body: body, fault: true,
			kv: append([]string{schema.AttrExceptionType, exc, "messaging.message.delivery_count", itoa(k)}, kv...)})
		s.span(sc, spanRec{id: sc.span, parent: parent, name: q.consumer.route, kind: kindConsumer, start: t, end: end.Add(time.Millisecond),
			failed: true, msg: body, fault: true, kv: kv})
		if k == s.p.maxReceive {
			s.log(sc, line{at: end.Add(2 * time.Millisecond), sev: pickBy(c, 11, []schema.Severity{schema.SeverityError, schema.SeverityWarn}),
				logger: logger(c, "messaging"), body: dlqMsg(c, q, msgID, k), fault: true, kv: kv})
		}
	}
}

func (s *sim) messageID() string {
	h := s.r.hexID(16)
	return h[0:8] + "-" + h[8:12] + "-4" + h[13:16] + "-a" + h[17:20] + "-" + h[20:32]
}
