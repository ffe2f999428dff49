package sim

// The vocabularies of the job-queue and edge topologies: words the shop
// never uses, so that nothing tuned on the shop's names carries over.

func jobAPINames() []string {
	return []string{"intake-api", "job-submitter", "batch-frontdoor", "work-intake", "jobs-ingress"}
}

// jobWords name the job type: the queue is <word>-jobs, the workers <word>-worker.
func jobWords() []string {
	return []string{"render", "crunch", "etl", "scan", "convert", "digest", "ingest", "harvest"}
}

func jobTenantNames() []string {
	return []string{"tenant-registry", "quota-keeper", "entitlements", "plan-limits"}
}

func jobStatusNames() []string {
	return []string{"job-tracker", "jobstate", "progress-board", "run-ledger"}
}

func jobStageNames() []string {
	return []string{"transcoder", "ocr-engine", "thumbnailer", "virus-scan", "extractor", "indexer", "geocoder",
		"dedup", "classifier", "enricher", "splitter", "normalizer", "summarizer", "resizer", "tokenizer"}
}

func jobAuditNames() []string {
	return []string{"audit-log", "audit-trail", "event-journal", "compliance-log"}
}

func jobExternalNames() []string {
	return []string{"blobvault-api", "objstore-vendor", "webhook-relay", "filedrop-api"}
}

func edgeRouterNames() []string {
	return []string{"edge-router", "front-door", "pop-proxy", "ingress-mesh", "l7-router"}
}

func edgeAuthNames() []string { return []string{"token-check", "keyring", "authz-edge", "signer"} }

func edgeBackendWords() []string {
	return []string{"tiles", "manifests", "renderer", "thumbs", "geodata", "fonts", "playlists", "segments",
		"configs", "weather", "maps", "avatars", "lyrics", "subtitles"}
}

func edgeBackendSuffixes() []string { return []string{"-origin", "-backend", "-be", "-store"} }

func edgeMirrorNames() []string { return []string{"static-fallback", "cold-mirror", "stale-origin"} }

func edgeResolverNames() []string {
	return []string{"asset-resolver", "meta-index", "key-lookup", "route-table"}
}

func edgePurgerNames() []string { return []string{"cache-purger", "invalidator", "evictor"} }

func edgeCacheNames() []string { return []string{"hotcache", "edge-kv", "memo-store", "object-cache"} }

func edgeExternalNames() []string {
	return []string{"geo-vendor-api", "license-server", "drm-keys-api", "imagery-provider"}
}

// dbStyles are a database's name ending and its system.
func dbStyles() [][2]string {
	return [][2]string{{"-pg", "postgresql"}, {"-store", "postgresql"}, {"-mysql", "mysql"}, {"-mongo", "mongodb"}}
}
