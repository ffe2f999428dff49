package web

import (
	"net/http"
	"testing"
)

// benchPage serves path repeatedly and reports the page's size, and the
// size with the page's script and stylesheet (what a first visit loads).
func benchPage(b *testing.B, cfg Config, be Backend, path string) {
	h := newTestHandler(b, cfg, be)
	rec := get(h, path)
	if rec.Code != http.StatusOK {
		b.Fatalf("GET %s: %d", path, rec.Code)
	}
	html := rec.Body.Len()
	assets := get(h, "/static/app.css").Body.Len() + get(h, "/static/app.js").Body.Len() + get(h, "/static/icon.svg").Body.Len()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if rec := get(h, path); rec.Code != http.StatusOK {
			b.Fatalf("GET %s: %d", path, rec.Code)
		}
	}
	b.ReportMetric(float64(html), "html-bytes")
	b.ReportMetric(float64(html+assets), "page-bytes")
}

// BenchmarkIncidentPage renders an incident of 50 candidates over 40 services.
func BenchmarkIncidentPage(b *testing.B) {
	be := newFixtureBackend()
	be.report = largeReport(50, 40)
	benchPage(b, Config{}, be, "/incident?since=1h")
}

// BenchmarkTracePage renders a 5000-record trace, capped for display.
func BenchmarkTracePage(b *testing.B) {
	be := newFixtureBackend()
	be.traces[fixtureTrace] = largeResult(5000)
	benchPage(b, Config{}, be, "/trace/"+string(fixtureTrace))
}

// BenchmarkRunbookPage renders the fixture runbook's Markdown.
func BenchmarkRunbookPage(b *testing.B) {
	benchPage(b, Config{}, newFixtureBackend(), "/runbooks/"+fixtureRunbook)
}

// BenchmarkIncidentAPI serves the incident JSON of 50 candidates over 40 services.
func BenchmarkIncidentAPI(b *testing.B) {
	be := newFixtureBackend()
	be.report = largeReport(50, 40)
	benchPage(b, Config{}, be, "/api/v1/incident?since=1h")
}
