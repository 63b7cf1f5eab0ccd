package web

import (
	"net/http"
	"testing"

	"github.com/idlegpu/idlegpu/scripts/pgtest"
)

// BenchmarkPages measures each page's server time (handler, gRPC reads of
// the real app's state, index queries, rendering) on a market of 10,000
// one-GPU offers from 50 providers and an index of 100,000 ended leases,
// each with a proven epoch. Requests are served the latest read of the
// market (a background read replaces it each second); "market-read" is
// that read of all 10,000 offers, which only the server's start waits for.
//
//	go test ./web -run '^$' -bench BenchmarkPages -benchtime 20x
//	IDLEGPU_BENCH_DB=postgres go test ./web -run '^$' -bench BenchmarkPages -benchtime 20x
func BenchmarkPages(b *testing.B) {
	f := newFixtureOn(b, pgtest.BenchTarget(b, b.TempDir()), 50, 200, 100_000, 1)
	p0, r0 := f.providers[0], f.renters[0]
	pages := []struct{ name, path string }{
		{"market", "/"},
		{"providers", "/providers"},
		{"provider", "/providers/" + p0},
		{"jobs", "/jobs?renter=" + r0},
		{"job", "/jobs/100000"},
		{"lease", "/leases/100000"},
		{"network", "/network"},
		{"post", "/post"},
		{"post-preview", "/post?preview=1&gpus=2&duration=2h&max_price=1.5usdc/gpu-h&tier=silver&workload=batch&manifest=x&image=" + imageRef},
	}
	for _, pg := range pages {
		b.Run(pg.name, func(b *testing.B) {
			if code, body := f.get(b, pg.path); code != http.StatusOK {
				b.Fatalf("%s: %d %s", pg.path, code, snippet(body))
			}
			for b.Loop() {
				f.get(b, pg.path)
			}
		})
	}
	b.Run("market-read", func(b *testing.B) {
		for b.Loop() {
			if _, err := readMarket(b.Context(), f.srv.conn, f.db); err != nil {
				b.Fatal(err)
			}
		}
	})
}
