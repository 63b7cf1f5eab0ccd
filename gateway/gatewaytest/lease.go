// Package gatewaytest is what the gateway's tests need of the provider's
// side: a lease whose deterministic token-streaming service sits behind the
// provider's real ingress (agent/ingress) on TLS with HTTP/2.
package gatewaytest

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idlegpu/idlegpu/agent/ingress"
	"github.com/idlegpu/idlegpu/gateway"
)

// Domain is the test providers' ingress domain.
const Domain = "gpu.example.com"

// Lease is one provider's lease serving a deployment.
type Lease struct {
	ID      uint64
	Ingress *httptest.Server
	// Served counts the chat completions its service handled; LastBody is
	// the last request body it read.
	Served   atomic.Int64
	LastBody atomic.Value
}

// NewLease serves lease id until the test ends, letting the keys (by hash)
// call it. Its service answers GET /v1/models, and POST
// /v1/chat/completions with three streamed token chunks naming the lease,
// a usage chunk and [DONE] (a 500 when the body contains "fail":true).
func NewLease(t testing.TB, id uint64, keys ...ingress.KeyHash) *Lease {
	t.Helper()
	l := &Lease{ID: id}
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/models", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"data":[{"id":"test-model"}]}`)
	})
	mux.HandleFunc("/v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		l.Served.Add(1)
		b, _ := io.ReadAll(r.Body)
		l.LastBody.Store(string(b))
		if strings.Contains(string(b), `"fail":true`) {
			http.Error(w, "the model failed", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 3 {
			fmt.Fprintf(w, "data: {\"lease\":%d,\"choices\":[{\"delta\":{\"content\":\"t%d\"}}]}\n\n", id, i)
			w.(http.Flusher).Flush()
		}
		fmt.Fprint(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":3}}\n\ndata: [DONE]\n\n")
	})
	svc := httptest.NewServer(mux)
	t.Cleanup(svc.Close)
	target, _ := url.Parse(svc.URL)
	table := ingress.NewTable()
	if err := table.Set(ingress.Route{LeaseID: id, Host: ingress.HostFor(id, Domain), Target: target, Ends: time.Now().Add(time.Hour), Rate: 1000, Burst: 1000}); err != nil {
		t.Fatal(err)
	}
	for _, h := range keys {
		if err := table.AddKey(id, h); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewUnstartedServer(ingress.NewProxy(table, nil, nil))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	l.Ingress = srv
	return l
}

// Upstream is the lease as a gateway reaches it: the ingress's address,
// with the lease's hostname as the Host.
func (l *Lease) Upstream() gateway.Upstream {
	u, _ := url.Parse(l.Ingress.URL)
	return gateway.Upstream{LeaseID: l.ID, URL: u, Host: ingress.HostFor(l.ID, Domain)}
}

// Kill stops the lease's ingress as a dying provider would: connections
// dropped, nothing listening.
func (l *Lease) Kill() {
	l.Ingress.CloseClientConnections()
	l.Ingress.Close()
}
