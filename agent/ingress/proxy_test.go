package ingress

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"
)

const domain = "gpu.example.com"

// service is a lease's container: a real HTTP server on loopback that
// records what reached it.
type service struct {
	*httptest.Server
	auth, fwdHost atomic.Value
	// acks lets a streaming handler wait until the caller has each event.
	acks chan struct{}
}

func newService(t testing.TB) *service {
	s := &service{acks: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		s.auth.Store(r.Header.Get("Authorization"))
		s.fwdHost.Store(r.Header.Get("X-Forwarded-Host"))
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"c1","object":"chat.completion","choices":[{"message":{"role":"assistant","content":"%d bytes"}}],"usage":{"prompt_tokens":%d,"completion_tokens":5,"total_tokens":%d}}`, len(body), len(body)/4, len(body)/4+5)
	})
	// /stream sends three token chunks, each only after the caller got the
	// one before (so it passes only if the proxy flushes each at once),
	// then the usage chunk and [DONE].
	mux.HandleFunc("/stream", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 3 {
			fmt.Fprintf(w, "data: {\"choices\":[{\"delta\":{\"content\":\"t%d\"}}]}\n\n", i)
			w.(http.Flusher).Flush()
			select {
			case <-s.acks:
			case <-time.After(5 * time.Second):
				return // the caller never saw it: the proxy held it back
			}
		}
		fmt.Fprint(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":3}}\n\ndata: [DONE]\n\n")
	})
	// /tokens streams 16 token chunks and the usage chunk at once, as a
	// fast model's answer arrives (the load benchmark's request).
	mux.HandleFunc("/tokens", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 16 {
			fmt.Fprintf(w, "data: {\"choices\":[{\"delta\":{\"content\":\"t%d\"}}]}\n\n", i)
			w.(http.Flusher).Flush()
		}
		fmt.Fprint(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":4,\"completion_tokens\":16}}\n\ndata: [DONE]\n\n")
	})
	// /forever streams an event every 20 ms until the caller goes.
	mux.HandleFunc("/forever", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for {
			if _, err := fmt.Fprint(w, "data: {\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1}}\n\n"); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	})
	// /upgrade switches to a line echo protocol, as WebSocket switches.
	mux.HandleFunc("/upgrade", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Upgrade") != "echo" {
			http.Error(w, "upgrade: echo", http.StatusUpgradeRequired)
			return
		}
		conn, rw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		fmt.Fprint(rw, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n")
		rw.Flush()
		for {
			line, err := rw.ReadString('\n')
			if err != nil {
				return
			}
			rw.WriteString(line)
			rw.Flush()
		}
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

func (s *service) target() *url.URL {
	u, _ := url.Parse(s.URL)
	return u
}

// ingress is the proxy on a TLS listener offering HTTP/2, as the agent
// runs it.
type ingress struct {
	*httptest.Server
	table *Table
	proxy *Proxy
}

func newIngress(t testing.TB) *ingress {
	table := NewTable()
	p := NewProxy(table, nil, nil)
	srv := httptest.NewUnstartedServer(p)
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return &ingress{Server: srv, table: table, proxy: p}
}

// call sends a request for host with key ("" for none).
func (in *ingress) call(t *testing.T, method, host, path, key string, body io.Reader) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, in.URL+path, body)
	require.NoError(t, err)
	req.Host = host
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := in.Client().Do(req)
	require.NoError(t, err)
	return res
}

func readAll(t *testing.T, res *http.Response) string {
	t.Helper()
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return string(b)
}

// serve routes a lease to svc until ends and gives it one key.
func (in *ingress) serve(t testing.TB, lease uint64, svc *service, ends time.Time) string {
	t.Helper()
	require.NoError(t, in.table.Set(Route{LeaseID: lease, Host: HostFor(lease, domain), Target: svc.target(), Ends: ends, Rate: 100, Burst: 100}))
	key, h, err := NewKey()
	require.NoError(t, err)
	require.NoError(t, in.table.AddKey(lease, h))
	return key
}

// TestOnlyTheLeasesKeysReachItsService: the attacks a caller can try
// without the renter's key for this lease, each refused before anything
// reaches the service; then a good key, whose request arrives without it.
func TestOnlyTheLeasesKeysReachItsService(t *testing.T) {
	in := newIngress(t)
	svc1, svc2 := newService(t), newService(t)
	ends := time.Now().Add(time.Hour)
	key1 := in.serve(t, 1, svc1, ends)
	key2 := in.serve(t, 2, svc2, ends)
	host1 := HostFor(1, domain)

	for _, tc := range []struct {
		name, host, key string
		code            int
		body            string
	}{
		{"no key", host1, "", http.StatusUnauthorized, "a valid API key for this service is required"},
		{"a made-up key", host1, "igk_guess", http.StatusUnauthorized, "a valid API key"},
		{"lease 2's key on lease 1", host1, key2, http.StatusUnauthorized, "a valid API key"},
		{"an unknown host", HostFor(3, domain), key1, http.StatusNotFound, "no such service"},
		{"the bare domain", domain, key1, http.StatusNotFound, "no such service"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := in.call(t, http.MethodPost, tc.host, "/v1/chat/completions", tc.key, strings.NewReader("hi"))
			require.Equal(t, tc.code, res.StatusCode)
			require.Contains(t, readAll(t, res), tc.body)
			if tc.code == http.StatusUnauthorized {
				require.Equal(t, `Bearer realm="idlegpu"`, res.Header.Get("WWW-Authenticate"))
			}
		})
	}
	require.Nil(t, svc1.auth.Load(), "nothing reached lease 1's service")

	res := in.call(t, http.MethodPost, strings.ToUpper(host1)+":443", "/v1/chat/completions", key1, strings.NewReader("sixteen bytes!!!"))
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Contains(t, readAll(t, res), `"content":"16 bytes"`)
	require.Equal(t, "", svc1.auth.Load(), "the caller's key is not forwarded to the container")
	require.Equal(t, strings.ToUpper(host1)+":443", svc1.fwdHost.Load())
	m, ok := in.table.Meter(1)
	require.True(t, ok)
	require.EqualValues(t, 1, m.Requests)
	require.EqualValues(t, 3, m.Refused, "no key, a made-up key and lease 2's key")
	require.EqualValues(t, 16, m.BytesIn)
	require.EqualValues(t, 4, m.PromptTokens)
	require.EqualValues(t, 5, m.CompletionTokens)
}

// TestRevokedKeyStopsAtOnce: a revoked key's next request is refused.
func TestRevokedKeyStopsAtOnce(t *testing.T) {
	in := newIngress(t)
	key := in.serve(t, 1, newService(t), time.Now().Add(time.Hour))
	res := in.call(t, http.MethodGet, HostFor(1, domain), "/v1/chat/completions", key, nil)
	require.Equal(t, http.StatusOK, res.StatusCode)
	readAll(t, res)
	in.table.RevokeKey(1, HashKey(key))
	res = in.call(t, http.MethodGet, HostFor(1, domain), "/v1/chat/completions", key, nil)
	require.Equal(t, http.StatusUnauthorized, res.StatusCode)
	readAll(t, res)
}

// TestRateLimitIsPerKey: a key past its burst is told when to come back;
// another key of the same lease is not held back by it.
func TestRateLimitIsPerKey(t *testing.T) {
	in := newIngress(t)
	svc := newService(t)
	require.NoError(t, in.table.Set(Route{LeaseID: 1, Host: HostFor(1, domain), Target: svc.target(), Ends: time.Now().Add(time.Hour), Rate: 0.5, Burst: 2}))
	k1, h1, _ := NewKey()
	k2, h2, _ := NewKey()
	require.NoError(t, in.table.AddKey(1, h1))
	require.NoError(t, in.table.AddKey(1, h2))
	var codes []int
	for range 3 {
		res := in.call(t, http.MethodGet, HostFor(1, domain), "/v1/chat/completions", k1, nil)
		codes = append(codes, res.StatusCode)
		if res.StatusCode == http.StatusTooManyRequests {
			require.Equal(t, "2", res.Header.Get("Retry-After"), "one request every 2 s")
		}
		readAll(t, res)
	}
	require.Equal(t, []int{200, 200, 429}, codes)
	res := in.call(t, http.MethodGet, HostFor(1, domain), "/v1/chat/completions", k2, nil)
	require.Equal(t, http.StatusOK, res.StatusCode)
	readAll(t, res)
	// Setting the route again (as the agent does each block) refills nothing.
	require.NoError(t, in.table.Set(Route{LeaseID: 1, Host: HostFor(1, domain), Target: svc.target(), Ends: time.Now().Add(time.Hour), Rate: 0.5, Burst: 2}))
	res = in.call(t, http.MethodGet, HostFor(1, domain), "/v1/chat/completions", k1, nil)
	require.Equal(t, http.StatusTooManyRequests, res.StatusCode)
	readAll(t, res)
}

// TestStreamsTokensAsTheyCome: each server-sent event reaches the caller
// before the service writes the next (the service waits for the caller's
// acknowledgement, so a proxy that buffers fails this), over HTTP/2; the
// usage chunk at the end is metered.
func TestStreamsTokensAsTheyCome(t *testing.T) {
	in := newIngress(t)
	svc := newService(t)
	key := in.serve(t, 1, svc, time.Now().Add(time.Hour))
	res := in.call(t, http.MethodPost, HostFor(1, domain), "/stream", key, strings.NewReader(`{"stream":true}`))
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, 2, res.ProtoMajor, "the caller got HTTP/2")
	defer res.Body.Close()
	r := bufio.NewReader(res.Body)
	var got strings.Builder
	for i := range 3 {
		line, err := r.ReadString('\n')
		require.NoError(t, err)
		require.Contains(t, line, fmt.Sprintf(`"content":"t%d"`, i))
		got.WriteString(line)
		blank, err := r.ReadString('\n')
		require.NoError(t, err)
		got.WriteString(blank)
		select {
		case svc.acks <- struct{}{}:
		case <-time.After(5 * time.Second):
			t.Fatal("the service stopped streaming")
		}
	}
	rest, err := io.ReadAll(r)
	require.NoError(t, err)
	got.Write(rest)
	require.True(t, strings.HasSuffix(got.String(), "data: [DONE]\n\n"))
	res.Body.Close()
	require.Eventually(t, func() bool { m, _ := in.table.Meter(1); return m.CompletionTokens == 3 }, 5*time.Second, 10*time.Millisecond)
	m, _ := in.table.Meter(1)
	require.EqualValues(t, 7, m.PromptTokens)
	require.EqualValues(t, len(`{"stream":true}`), m.BytesIn)
	require.EqualValues(t, got.Len(), m.BytesOut)
}

// TestTheLeasesEndCutsItsStreams: a stream still open at the lease's end is
// cut there, and every request after it is refused as ended.
func TestTheLeasesEndCutsItsStreams(t *testing.T) {
	in := newIngress(t)
	ends := time.Now().Add(300 * time.Millisecond)
	key := in.serve(t, 1, newService(t), ends)
	res := in.call(t, http.MethodGet, HostFor(1, domain), "/forever", key, nil)
	require.Equal(t, http.StatusOK, res.StatusCode)
	n, _ := io.Copy(io.Discard, res.Body) // returns when the stream is cut
	res.Body.Close()
	cut := time.Now()
	require.Positive(t, n, "it streamed until the end")
	require.False(t, cut.Before(ends), "cut at %s, before the lease's end %s", cut, ends)
	require.Less(t, cut.Sub(ends), 2*time.Second, "cut %s after the lease's end", cut.Sub(ends))
	res = in.call(t, http.MethodGet, HostFor(1, domain), "/v1/chat/completions", key, nil)
	require.Equal(t, http.StatusGone, res.StatusCode)
	require.Contains(t, readAll(t, res), "this lease has ended")
}

// TestUpgradeIsSplicedAndMetered: an upgraded connection (WebSocket's way
// in) is spliced through to the service both ways and its bytes metered.
func TestUpgradeIsSplicedAndMetered(t *testing.T) {
	in := newIngress(t)
	key := in.serve(t, 1, newService(t), time.Now().Add(time.Hour))
	conn, err := tls.Dial("tcp", in.Listener.Addr().String(), &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"http/1.1"}}) //nolint:gosec // the test's own certificate
	require.NoError(t, err)
	defer conn.Close()
	fmt.Fprintf(conn, "GET /upgrade HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n", HostFor(1, domain), key)
	r := bufio.NewReader(conn)
	res, err := http.ReadResponse(r, nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusSwitchingProtocols, res.StatusCode)
	for _, msg := range []string{"hello\n", "world, again\n"} {
		_, err := conn.Write([]byte(msg))
		require.NoError(t, err)
		got, err := r.ReadString('\n')
		require.NoError(t, err)
		require.Equal(t, msg, got)
	}
	conn.Close()
	require.Eventually(t, func() bool {
		m, _ := in.table.Meter(1)
		return m.BytesIn == 19 && m.BytesOut == 19
	}, 5*time.Second, 10*time.Millisecond)
}

// TestAServiceThatIsDown: a lease whose container does not listen gets
// 502, counted as failed, not as answered.
func TestAServiceThatIsDown(t *testing.T) {
	in := newIngress(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	l.Close()
	require.NoError(t, in.table.Set(Route{LeaseID: 1, Host: HostFor(1, domain), Target: &url.URL{Scheme: "http", Host: addr}, Ends: time.Now().Add(time.Hour), Rate: 1, Burst: 1}))
	_, h, _ := NewKey()
	require.NoError(t, in.table.AddKey(1, h))
	key, h2, _ := NewKey()
	require.NoError(t, in.table.AddKey(1, h2))
	res := in.call(t, http.MethodGet, HostFor(1, domain), "/", key, nil)
	require.Equal(t, http.StatusBadGateway, res.StatusCode)
	require.Contains(t, readAll(t, res), "the lease's service did not answer")
	m, _ := in.table.Meter(1)
	require.Equal(t, Snapshot{Failed: 1}, m)
}

// TestTableRefusesRoutesItMustNotServe: a route to anything but a loopback
// port or a container on the service network, to the agent's own listeners,
// to the host's end of the service network, or to a host another lease has.
func TestTableRefusesRoutesItMustNotServe(t *testing.T) {
	table := NewTable("127.0.0.1:8443")
	ok := Route{LeaseID: 1, Host: HostFor(1, domain), Target: &url.URL{Scheme: "http", Host: "127.0.0.1:30001"}, Ends: time.Now().Add(time.Hour), Rate: rate.Limit(1), Burst: 1}
	require.NoError(t, table.Set(ok))
	container := ok
	container.Target = &url.URL{Scheme: "http", Host: "172.31.251.2:8000"}
	require.ErrorIs(t, table.Set(container), ErrBadRoute, "no service network yet: loopback only")
	table.AllowServices(netip.MustParsePrefix("172.31.251.0/24"))
	require.NoError(t, table.Set(container), "a job's container on the service network")
	require.NoError(t, table.Set(ok))
	for _, tc := range []struct {
		name string
		edit func(*Route)
		err  error
	}{
		{"another host's port", func(r *Route) { r.Target = &url.URL{Scheme: "http", Host: "10.0.0.5:30001"} }, ErrBadRoute},
		{"past the service network", func(r *Route) { r.Target = &url.URL{Scheme: "http", Host: "172.31.252.2:8000"} }, ErrBadRoute},
		{"the service network's own address", func(r *Route) { r.Target = &url.URL{Scheme: "http", Host: "172.31.251.0:8000"} }, ErrBadRoute},
		{"no port", func(r *Route) { r.Target = &url.URL{Scheme: "http", Host: "172.31.251.2:0"} }, ErrBadRoute},
		{"a name, not an address", func(r *Route) { r.Target = &url.URL{Scheme: "http", Host: "localhost:30001"} }, ErrBadRoute},
		{"the agent's endpoint", func(r *Route) { r.Target = &url.URL{Scheme: "http", Host: "127.0.0.1:8443"} }, ErrBadRoute},
		{"a path", func(r *Route) { r.Target = &url.URL{Scheme: "http", Host: "127.0.0.1:30001", Path: "/admin"} }, ErrBadRoute},
		{"https upstream", func(r *Route) { r.Target = &url.URL{Scheme: "https", Host: "127.0.0.1:30001"} }, ErrBadRoute},
		{"no end", func(r *Route) { r.Ends = time.Time{} }, ErrBadRoute},
		{"no rate", func(r *Route) { r.Rate = 0 }, ErrBadRoute},
		{"a host with a port", func(r *Route) { r.Host = "lease-2.gpu.example.com:443" }, ErrBadRoute},
		{"lease 1's host for lease 2", func(r *Route) { r.Host = HostFor(1, domain) }, ErrHostTaken},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := ok
			r.LeaseID, r.Host = 2, HostFor(2, domain)
			tc.edit(&r)
			require.ErrorIs(t, table.Set(r), tc.err)
			_, found := table.Meter(2)
			require.False(t, found, "nothing was added")
		})
	}
	require.ErrorIs(t, table.AddKey(9, HashKey("k")), ErrUnknownLease)
	snap, removed := table.Remove(1)
	require.True(t, removed)
	require.Equal(t, Snapshot{}, snap)
	require.Nil(t, table.lookup(HostFor(1, domain)))
}

// TestTableRefusesTheHostOnTheServiceNetwork: the host's own address on the
// service network (the bridge's, where a host listener on every address
// answers) is never a job's.
func TestTableRefusesTheHostOnTheServiceNetwork(t *testing.T) {
	addrs, err := net.InterfaceAddrs()
	require.NoError(t, err)
	for _, a := range addrs {
		p, err := netip.ParsePrefix(a.String())
		if err != nil || p.Addr().IsLoopback() || !p.Addr().Is4() || p.Bits() >= 31 {
			continue
		}
		table := NewTable()
		table.AllowServices(p)
		r := Route{LeaseID: 1, Host: HostFor(1, domain), Target: &url.URL{Scheme: "http", Host: netip.AddrPortFrom(p.Addr(), 8000).String()},
			Ends: time.Now().Add(time.Hour), Rate: rate.Limit(1), Burst: 1}
		require.ErrorIs(t, table.Set(r), ErrBadRoute, "%s is this host's", p.Addr())
		require.ErrorContains(t, table.Set(r), "is this host's, not a job's")
		return
	}
	t.Skip("no IPv4 interface address besides loopback")
}
