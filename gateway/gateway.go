package gateway

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httputil"
	"strings"
	"sync"
	"time"

	"github.com/idlegpu/idlegpu/internal/hostname"
)

// maxRetryBody is the largest request body kept to send again to another
// lease; a larger one is sent once (inference requests are far smaller).
const maxRetryBody = 1 << 20

// Deployment is one stable address and the leases behind it.
type Deployment struct {
	// Host is the name users call, such as chat.example.com.
	Host      string
	Upstreams []Upstream
	// ProbePath is fetched from each upstream every probe interval with
	// ProbeKey (a key the renter issued the gateway); a 2xx answer is
	// healthy. An OpenAI-compatible server answers /v1/models.
	ProbePath string
	ProbeKey  string
}

// Config configures a gateway.
type Config struct {
	Deployments []Deployment
	// Transport reaches the upstreams (nil: http.DefaultTransport's
	// settings, which verify the ingress's certificate with the system's
	// roots: an ACME wildcard certificate).
	Transport http.RoundTripper
	// ProbeEvery is the health probe interval (default 1 s) and
	// ProbeTimeout a probe's limit (default 2 s): a dead upstream is out of
	// rotation within their sum even with no traffic.
	ProbeEvery, ProbeTimeout time.Duration
	// HeaderTimeout bounds the wait for an upstream's response header
	// (default 2 min: a model may think long before a non-streamed answer).
	HeaderTimeout time.Duration
}

// Gateway routes each deployment's requests to its leases.
type Gateway struct {
	cfg   Config
	deps  map[string]*deployment
	rt    http.RoundTripper
	rp    *httputil.ReverseProxy
	probe *http.Client
	now   func() time.Time
}

type deployment struct {
	Deployment
	pool *pool
}

// New checks cfg and makes the gateway; Run probes its upstreams.
func New(cfg Config) (*Gateway, error) {
	if cfg.ProbeEvery <= 0 {
		cfg.ProbeEvery = time.Second
	}
	if cfg.ProbeTimeout <= 0 {
		cfg.ProbeTimeout = 2 * time.Second
	}
	if cfg.HeaderTimeout <= 0 {
		cfg.HeaderTimeout = 2 * time.Minute
	}
	rt := cfg.Transport
	if rt == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.Proxy = nil
		t.ResponseHeaderTimeout = cfg.HeaderTimeout
		rt = t
	}
	g := &Gateway{cfg: cfg, deps: map[string]*deployment{}, rt: rt, probe: &http.Client{Transport: rt, Timeout: cfg.ProbeTimeout}, now: time.Now}
	g.rp = &httputil.ReverseProxy{
		Rewrite:       rewrite,
		Transport:     failover{g},
		FlushInterval: -1, // token streams reach the caller event by event
		ErrorHandler:  proxyError,
		ErrorLog:      log.New(io.Discard, "", 0),
	}
	for _, d := range cfg.Deployments {
		host := hostname.Canonical(d.Host)
		if host == "" || g.deps[host] != nil {
			return nil, fmt.Errorf("gateway: deployment host %q is empty or used twice", d.Host)
		}
		if len(d.Upstreams) == 0 {
			return nil, fmt.Errorf("gateway: deployment %s has no upstream", d.Host)
		}
		for _, u := range d.Upstreams {
			if u.URL == nil || u.URL.Scheme != "https" || u.URL.Host == "" {
				return nil, fmt.Errorf("gateway: deployment %s: upstream %v is not an https URL (an ingress)", d.Host, u.URL)
			}
		}
		if !strings.HasPrefix(d.ProbePath, "/") || d.ProbeKey == "" {
			return nil, fmt.Errorf("gateway: deployment %s needs a probe path and a probe key", d.Host)
		}
		g.deps[host] = &deployment{Deployment: d, pool: newPool(d.Upstreams)}
	}
	return g, nil
}

// States is what the gateway knows of host's upstreams (nil: no such
// deployment).
func (g *Gateway) States(host string) []State {
	d := g.deps[hostname.Canonical(host)]
	if d == nil {
		return nil
	}
	return d.pool.states()
}

// Run probes every upstream each ProbeEvery until ctx ends.
func (g *Gateway) Run(ctx context.Context) {
	t := time.NewTicker(g.cfg.ProbeEvery)
	defer t.Stop()
	for {
		g.probeAll(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// probeAll probes every upstream at once and waits for them all.
func (g *Gateway) probeAll(ctx context.Context) {
	var wg sync.WaitGroup
	for _, d := range g.deps {
		for _, m := range d.pool.members {
			wg.Add(1)
			go func() {
				defer wg.Done()
				start := g.now()
				err := g.probeOne(ctx, d, m.up)
				if ctx.Err() == nil {
					d.pool.probed(m, g.now().Sub(start), err, g.now())
				}
			}()
		}
	}
	wg.Wait()
}

func (g *Gateway) probeOne(ctx context.Context, d *deployment, up Upstream) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, up.URL.JoinPath(d.ProbePath).String(), nil)
	if err != nil {
		return err
	}
	if up.Host != "" {
		req.Host = up.Host
	}
	req.Header.Set("Authorization", "Bearer "+d.ProbeKey)
	res, err := g.probe.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	res.Body.Close()
	if res.StatusCode/100 != 2 {
		return fmt.Errorf("probe %s: status %d", d.ProbePath, res.StatusCode)
	}
	return nil
}

// errNotServed marks an answer that means the lease did not serve the
// request (its ingress could not reach the service, or the lease ended):
// another lease may.
var errNotServed = errors.New("the lease did not serve the request")

// notServed are the ingress's answers for a request the lease's service
// never handled. 429 (the key's limit) and the service's own errors are
// the caller's answer and are not retried.
func notServed(code int) bool {
	return code == http.StatusBadGateway || code == http.StatusServiceUnavailable ||
		code == http.StatusGatewayTimeout || code == http.StatusGone
}

// reqState is what ServeHTTP hands the failover transport with a request:
// its deployment and its body, kept for another attempt.
type reqState struct {
	d      *deployment
	body   func() io.ReadCloser
	replay bool
}

type stateKey struct{}

// errNoHealthy is the failover's answer when the pool is empty.
var errNoHealthy = errors.New("no lease of this deployment is healthy")

func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	d := g.deps[hostname.Canonical(r.Host)]
	if d == nil {
		http.Error(w, "no such deployment", http.StatusNotFound)
		return
	}
	body, replay, err := keepBody(r)
	if err != nil {
		http.Error(w, "reading the request: "+err.Error(), http.StatusBadRequest)
		return
	}
	st := &reqState{d: d, body: body, replay: replay}
	g.rp.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), stateKey{}, st)))
}

// rewrite keeps the caller's path and query and sets X-Forwarded-*; the
// failover transport picks the upstream.
func rewrite(pr *httputil.ProxyRequest) {
	pr.SetXForwarded()
}

// proxyError answers a request no lease served.
func proxyError(w http.ResponseWriter, r *http.Request, err error) {
	if r.Context().Err() != nil {
		return // the caller left: nobody to answer
	}
	if errors.Is(err, errNoHealthy) {
		w.Header().Set("Retry-After", "1")
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	http.Error(w, "no lease of this deployment answered: "+err.Error(), http.StatusBadGateway)
}

// failover is the reverse proxy's transport: it sends the request to the
// deployment's upstreams in the pool's order until one serves it.
type failover struct{ g *Gateway }

func (f failover) RoundTrip(r *http.Request) (*http.Response, error) {
	st := r.Context().Value(stateKey{}).(*reqState)
	order := st.d.pool.order()
	if len(order) == 0 {
		return nil, errNoHealthy
	}
	var last error
	for i, m := range order {
		if i > 0 && !st.replay {
			break
		}
		res, err := f.g.attempt(r, st, m)
		if err == nil {
			return res, nil
		}
		last = err
		if r.Context().Err() != nil {
			break
		}
	}
	return nil, last
}

// attempt sends the request to one upstream; an error means it did not
// serve it and the upstream is out of rotation.
func (g *Gateway) attempt(r *http.Request, st *reqState, m *member) (*http.Response, error) {
	out := r.Clone(r.Context())
	u := *m.up.URL
	// A server request's path starts with "/"; the upstream's base path
	// (usually none) goes before it.
	u.Path, u.RawPath, u.RawQuery = strings.TrimSuffix(u.Path, "/")+r.URL.Path, "", r.URL.RawQuery
	out.URL = &u
	out.Body = st.body()
	out.Host = m.up.URL.Host
	if m.up.Host != "" {
		out.Host = m.up.Host
	}
	start := g.now()
	st.d.pool.begin(m)
	res, err := g.rt.RoundTrip(out)
	if err == nil && notServed(res.StatusCode) {
		res.Body.Close()
		err = fmt.Errorf("%w: status %d", errNotServed, res.StatusCode)
	}
	if err != nil && r.Context().Err() != nil {
		st.d.pool.abandon(m) // the caller went away: not the upstream's failure
		return nil, err
	}
	st.d.pool.done(m, g.now().Sub(start), err, g.now())
	return res, err
}

// keepBody reads the request body up to maxRetryBody so each attempt gets
// it whole; replay is false when it was larger (one attempt only).
func keepBody(r *http.Request) (body func() io.ReadCloser, replay bool, err error) {
	if r.Body == nil || r.Body == http.NoBody {
		return func() io.ReadCloser { return http.NoBody }, true, nil
	}
	buf, err := io.ReadAll(io.LimitReader(r.Body, maxRetryBody+1))
	if err != nil {
		return nil, false, err
	}
	if len(buf) <= maxRetryBody {
		return func() io.ReadCloser { return io.NopCloser(bytes.NewReader(buf)) }, true, nil
	}
	rest := r.Body
	return func() io.ReadCloser {
		return struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(buf), rest), rest}
	}, false, nil
}
