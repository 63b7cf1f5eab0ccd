package ingress

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// BenchmarkRoundTrip is one chat-completion-sized request and answer, sent
// directly to the service (plain HTTP on loopback, kept alive) and through
// the ingress (TLS, HTTP/2, key check, rate limit, metering, the usage
// read): the difference is what the proxy adds to each request.
func BenchmarkRoundTrip(b *testing.B) {
	svc := newService(b)
	body := strings.Repeat("x", 2000)
	run := func(b *testing.B, client *http.Client, url, host, key string) {
		b.ReportAllocs()
		for b.Loop() {
			req, _ := http.NewRequest(http.MethodPost, url+"/v1/chat/completions", strings.NewReader(body))
			if host != "" {
				req.Host = host
				req.Header.Set("Authorization", "Bearer "+key)
			}
			res, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := io.Copy(io.Discard, res.Body); err != nil {
				b.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusOK {
				b.Fatalf("status %d", res.StatusCode)
			}
		}
	}
	b.Run("direct", func(b *testing.B) { run(b, svc.Client(), svc.URL, "", "") })
	b.Run("ingress", func(b *testing.B) {
		in, key := benchIngress(b, svc)
		run(b, in.Client(), in.URL, HostFor(1, domain), key)
	})
}

// BenchmarkStreamsAtARate offers streamed chat completions at a fixed rate
// (-rate, default 200 a second, for -requests, default 2,000) directly and
// through the ingress, each from its own goroutine as callers arrive, and
// reports the p50 and p95 of the time to the whole stream (16 token chunks
// and the usage chunk): what the proxy adds under load, not one at a time.
// Run it with -benchtime 1x.
func BenchmarkStreamsAtARate(b *testing.B) {
	svc := newService(b)
	run := func(b *testing.B, client *http.Client, url, host, key string) {
		const rate, requests = 200, 2000
		lat := make([]time.Duration, requests)
		errs := make(chan error, requests)
		tick := time.NewTicker(time.Second / rate)
		defer tick.Stop()
		var wg sync.WaitGroup
		for b.Loop() {
			for i := range requests {
				<-tick.C
				wg.Add(1)
				go func() {
					defer wg.Done()
					start := time.Now()
					req, _ := http.NewRequest(http.MethodPost, url+"/tokens", strings.NewReader(`{"stream":true}`))
					if host != "" {
						req.Host = host
						req.Header.Set("Authorization", "Bearer "+key)
					}
					res, err := client.Do(req)
					if err != nil {
						errs <- err
						return
					}
					_, err = io.Copy(io.Discard, res.Body)
					res.Body.Close()
					if err != nil || res.StatusCode != http.StatusOK {
						errs <- fmt.Errorf("status %d, %v", res.StatusCode, err)
						return
					}
					lat[i] = time.Since(start)
				}()
			}
			wg.Wait()
		}
		close(errs)
		for err := range errs {
			b.Fatal(err)
		}
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
		b.ReportMetric(rate, "req/s")
	}
	b.Run("direct", func(b *testing.B) { run(b, svc.Client(), svc.URL, "", "") })
	b.Run("ingress", func(b *testing.B) {
		in, key := benchIngress(b, svc)
		run(b, in.Client(), in.URL, HostFor(1, domain), key)
	})
}

// benchIngress serves svc as lease 1 with one key and no practical rate
// limit: the benchmarks measure the proxy, not the limiter's refusals.
func benchIngress(b *testing.B, svc *service) (*ingress, string) {
	in := newIngress(b)
	key := in.serve(b, 1, svc, time.Now().Add(time.Hour))
	if err := in.table.Set(Route{LeaseID: 1, Host: HostFor(1, domain), Target: svc.target(), Ends: time.Now().Add(time.Hour), Rate: 1e9, Burst: 1 << 30}); err != nil {
		b.Fatal(err)
	}
	return in, key
}
