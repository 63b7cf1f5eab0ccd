package ingress

import (
	"io"
	"net/http"
	"strings"
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
		in := newIngress(b)
		key := in.serve(b, 1, svc, time.Now().Add(time.Hour))
		if err := in.table.Set(Route{LeaseID: 1, Host: HostFor(1, domain), Target: svc.target(), Ends: time.Now().Add(time.Hour), Rate: 1e9, Burst: 1 << 30}); err != nil {
			b.Fatal(err)
		}
		run(b, in.Client(), in.URL, HostFor(1, domain), key)
	})
}
