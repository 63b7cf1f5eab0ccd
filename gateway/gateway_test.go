package gateway_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/agent/ingress"
	"github.com/idlegpu/idlegpu/gateway"
	"github.com/idlegpu/idlegpu/gateway/gatewaytest"
)

const host = "chat.example.com"

// setup is two leases of one deployment behind a gateway that trusts their
// ingresses' certificates, probing every 200 ms.
func setup(t *testing.T) (gw *httptest.Server, g *gateway.Gateway, a, b *gatewaytest.Lease, key string) {
	key, h, err := ingress.NewKey()
	require.NoError(t, err)
	probeKey, ph, err := ingress.NewKey()
	require.NoError(t, err)
	a, b = gatewaytest.NewLease(t, 1, h, ph), gatewaytest.NewLease(t, 2, h, ph)
	roots := x509.NewCertPool()
	roots.AddCert(a.Ingress.Certificate())
	roots.AddCert(b.Ingress.Certificate())
	g, err = gateway.New(gateway.Config{
		Deployments: []gateway.Deployment{{Host: host, Upstreams: []gateway.Upstream{a.Upstream(), b.Upstream()}, ProbePath: "/v1/models", ProbeKey: probeKey}},
		Transport:   &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}, ForceAttemptHTTP2: true},
		ProbeEvery:  200 * time.Millisecond, ProbeTimeout: time.Second,
	})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go g.Run(ctx)
	gw = httptest.NewServer(g)
	t.Cleanup(gw.Close)
	return gw, g, a, b, key
}

func chat(t *testing.T, gw *httptest.Server, key, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, gw.URL+"/v1/chat/completions", strings.NewReader(body))
	require.NoError(t, err)
	req.Host = host
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := gw.Client().Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res, string(b)
}

// TestStreamsThroughTheIngress: a streamed chat completion goes through
// the gateway and a provider's ingress with the caller's key, whole.
func TestStreamsThroughTheIngress(t *testing.T) {
	gw, _, a, b, key := setup(t)
	res, body := chat(t, gw, key, `{"stream":true}`)
	require.Equal(t, http.StatusOK, res.StatusCode, body)
	require.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
	require.True(t, strings.HasSuffix(body, "data: [DONE]\n\n"), body)
	require.Equal(t, int64(1), a.Served.Load()+b.Served.Load())

	// Without a key of the deployment the provider's ingress refuses it,
	// and that answer is the caller's: it is not retried on the other lease.
	res, body = chat(t, gw, "igk_wrong", `{}`)
	require.Equal(t, http.StatusUnauthorized, res.StatusCode, body)
	require.Equal(t, int64(1), a.Served.Load()+b.Served.Load())
	// The service's own error is the caller's answer too.
	res, _ = chat(t, gw, key, `{"fail":true}`)
	require.Equal(t, http.StatusInternalServerError, res.StatusCode)
	require.Equal(t, int64(2), a.Served.Load()+b.Served.Load(), "a 500 is sent once")
}

// TestFailsOverWhenAProviderDies: with one lease's ingress killed, every
// request is still answered (the body sent again to the other lease), and
// the dead lease is out of rotation within 5 s even with no traffic.
func TestFailsOverWhenAProviderDies(t *testing.T) {
	gw, g, a, b, key := setup(t)
	for range 4 {
		res, body := chat(t, gw, key, `{"n":1}`)
		require.Equal(t, http.StatusOK, res.StatusCode, body)
	}
	// Kill whichever lease is first in rotation now.
	first, second := a, b
	if b.Served.Load() > a.Served.Load() {
		first, second = b, a
	}
	first.Kill()
	killed := time.Now()
	before := second.Served.Load()
	for i := range 5 {
		res, body := chat(t, gw, key, fmt.Sprintf(`{"after_kill":%d}`, i))
		require.Equal(t, http.StatusOK, res.StatusCode, body)
		require.Contains(t, body, fmt.Sprintf(`"lease":%d`, second.ID))
	}
	require.Equal(t, before+5, second.Served.Load())
	require.Equal(t, `{"after_kill":4}`, second.LastBody.Load(), "the body reached the other lease whole")

	// And with no traffic: the other lease dies too; probes take it out.
	second.Kill()
	require.Eventually(t, func() bool {
		for _, s := range g.States(host) {
			if s.Healthy {
				return false
			}
		}
		return true
	}, 5*time.Second, 20*time.Millisecond)
	for _, s := range g.States(host) {
		require.False(t, s.DownAt.Before(killed), "lease %d down at %s, killed at %s", s.Upstream.LeaseID, s.DownAt, killed)
		require.Less(t, s.DownAt.Sub(killed), 5*time.Second)
	}
	res, body := chat(t, gw, key, `{}`)
	require.Equal(t, http.StatusServiceUnavailable, res.StatusCode)
	require.Contains(t, body, "no lease of this deployment is healthy")

	// The operator's view: /healthz fails naming the deployment; /status
	// has both leases down with their last error.
	rec := httptest.NewRecorder()
	g.StatusHandler("eu-de-fra1").ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/healthz", nil))
	require.Equal(t, http.StatusServiceUnavailable, rec.Code)
	require.Equal(t, "deployment chat.example.com has no healthy lease\n", rec.Body.String())
	rec = httptest.NewRecorder()
	g.StatusHandler("eu-de-fra1").ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/status", nil))
	var st struct {
		Region      string
		Deployments map[string][]struct {
			Lease     uint64
			Healthy   bool
			LastError string `json:"last_error"`
		}
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &st))
	require.Equal(t, "eu-de-fra1", st.Region)
	require.Len(t, st.Deployments[host], 2)
	for _, u := range st.Deployments[host] {
		require.False(t, u.Healthy)
		require.NotEmpty(t, u.LastError)
	}
}

// TestStreamsAreFlushed: each event reaches the caller as the service
// sends it, not when the answer ends.
func TestStreamsAreFlushed(t *testing.T) {
	gw, _, _, _, key := setup(t)
	req, err := http.NewRequest(http.MethodPost, gw.URL+"/v1/chat/completions", strings.NewReader(`{}`))
	require.NoError(t, err)
	req.Host = host
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := gw.Client().Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	line, err := bufio.NewReader(res.Body).ReadString('\n')
	require.NoError(t, err)
	require.Contains(t, line, `"content":"t0"`)
}

func TestUnknownDeploymentAndBadConfig(t *testing.T) {
	gw, _, _, _, key := setup(t)
	req, _ := http.NewRequest(http.MethodGet, gw.URL+"/v1/models", nil)
	req.Host = "other.example.com"
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := gw.Client().Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusNotFound, res.StatusCode)

	up := gateway.Upstream{LeaseID: 1, URL: &url.URL{Scheme: "http", Host: "x"}}
	for name, d := range map[string]gateway.Deployment{
		"no upstream":  {Host: host, ProbePath: "/", ProbeKey: "k"},
		"plain http":   {Host: host, Upstreams: []gateway.Upstream{up}, ProbePath: "/", ProbeKey: "k"},
		"no probe key": {Host: host, Upstreams: []gateway.Upstream{{LeaseID: 1, URL: &url.URL{Scheme: "https", Host: "x"}}}, ProbePath: "/"},
		"no host":      {Upstreams: []gateway.Upstream{{LeaseID: 1, URL: &url.URL{Scheme: "https", Host: "x"}}}, ProbePath: "/", ProbeKey: "k"},
	} {
		_, err := gateway.New(gateway.Config{Deployments: []gateway.Deployment{d}})
		require.Error(t, err, name)
	}
}
