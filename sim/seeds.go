package sim

import (
	"slices"

	"github.com/faultline/faultline/schema"
)

// The seed systems: the four systems faultline's first users run, each a
// topology with the mechanisms its seed document describes (seed_*.go).
// They are kept apart from Topologies, the generic shapes, so that the
// cases built by cycling Topologies and Faults stay as they were.

const (
	topoRouting  = "routing"
	topoJobClaim = "jobclaim"
	topoTriage   = "triage"
	topoPayment  = "payment"
)

// SeedTopologies lists the seed systems: cloud routing with per-region
// breakers and a KV → D1 → Durable Object fallback (routing), a job queue
// whose breaker is computed per namespace from an audit log (jobclaim), an
// email-triage workflow with a classifier (triage), and a payment-timeout
// cascade with retries and a dead letter queue (payment).
func SeedTopologies() []string { return []string{topoRouting, topoJobClaim, topoTriage, topoPayment} }

// AllTopologies lists Topologies, then SeedTopologies.
func AllTopologies() []string { return append(Topologies(), SeedTopologies()...) }

// SystemTopology is the topology of a seed system as `analyze demo
// --system` names it: routing, jobqueue, triage or payment.
func SystemTopology(system string) (string, bool) {
	switch system {
	case "routing", "triage", "payment":
		return system, true
	case "jobqueue", topoJobClaim:
		return topoJobClaim, true
	}
	return "", false
}

// Systems lists the names SystemTopology takes.
func Systems() []string { return []string{"routing", "jobqueue", "triage", "payment"} }

// The fault types of the seed systems' own faults.
const (
	typeRegionAPI      = "region-api-outage"
	typeD1Down         = "d1-unavailable"
	typeInstanceDown   = "instance-down"
	typeHolderAPI      = "holder-api-slow"
	typeHolderStage    = "holder-stage-regression"
	typeNewLabel       = "classifier-new-label"
	typeModelSlow      = "model-api-slow"
	typeGatewayTimeout = "gateway-timeout"
	typePaymentPool    = "payment-pool-exhaustion"
)

// seedFaults are a seed system's own faults, as its seed tells them.
func seedFaults(topo string) []Fault {
	switch topo {
	case topoRouting:
		return []Fault{{schema.KindDependencyTimeout, typeRegionAPI}, {schema.KindDependencyTimeout, typeD1Down},
			{schema.KindConnectionRefused, typeInstanceDown}}
	case topoJobClaim:
		return []Fault{{schema.KindDependencyTimeout, typeHolderAPI}, {schema.KindBadDeploy, typeHolderStage}}
	case topoTriage:
		return []Fault{{schema.KindBadDeploy, typeNewLabel}, {schema.KindDependencyTimeout, typeModelSlow}}
	case topoPayment:
		return []Fault{{schema.KindDependencyTimeout, typeGatewayTimeout}, {schema.KindDBPoolExhaustion, typePaymentPool}}
	}
	return nil
}

// TopologyFaults lists the faults the cases of a topology take in turn:
// Faults for the generic shapes, a seed system's own faults for it. Every
// fault of Faults also applies to a seed system when asked for.
func TopologyFaults(topo string) []Fault {
	if f := seedFaults(topo); f != nil {
		return f
	}
	return Faults()
}

// seedFaultNamed finds a seed system's fault by its type.
func seedFaultNamed(name string) (Fault, string, bool) {
	for _, topo := range SeedTopologies() {
		for _, f := range seedFaults(topo) {
			if f.Type == name {
				return f, topo, true
			}
		}
	}
	return Fault{}, "", false
}

// isSeed reports whether topo is a seed system.
func isSeed(topo string) bool { return slices.Contains(SeedTopologies(), topo) }
