package ingress

import (
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/idlegpu/idlegpu/internal/hostname"
)

// Proxy serves the table's routes. It is an http.Handler for the ingress
// listener (TLS, with HTTP/2 offered).
type Proxy struct {
	table *Table
	now   func() time.Time
	rp    *httputil.ReverseProxy
}

// NewProxy serves table's routes through transport (nil: a transport of
// its own that dials only what the routes name). errorLog gets the reverse
// proxy's own errors, such as a stream cut at its lease's end (nil: none).
func NewProxy(table *Table, transport http.RoundTripper, errorLog *log.Logger) *Proxy {
	if errorLog == nil {
		errorLog = log.New(io.Discard, "", 0)
	}
	if transport == nil {
		transport = &http.Transport{
			Proxy:                 nil, // never an environment proxy: targets are this machine's ports
			DialContext:           (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
			MaxIdleConnsPerHost:   64,
			IdleConnTimeout:       90 * time.Second,
			ResponseHeaderTimeout: 0, // a model may think for minutes before its first byte
		}
	}
	p := &Proxy{table: table, now: time.Now}
	p.rp = &httputil.ReverseProxy{
		Rewrite:        rewrite,
		Transport:      transport,
		FlushInterval:  -1, // every write reaches the caller at once: token streams
		ModifyResponse: p.modifyResponse,
		ErrorHandler:   p.upstreamError,
		ErrorLog:       errorLog,
	}
	return p
}

// reqState is a request's route and meter, carried to the proxy's hooks.
type reqState struct {
	route Route
	meter *Meter
	start time.Time
	in    *countingBody
}

type stateKey struct{}

func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	e := p.table.lookup(hostname.Canonical(r.Host))
	if e == nil {
		// Says nothing about which leases this provider serves.
		http.Error(w, "no such service", http.StatusNotFound)
		return
	}
	key, hasKey := bearer(r.Header.Get("Authorization"))
	route, lim := e.snapshot(HashKey(key))
	now := p.now()
	if !now.Before(route.Ends) {
		e.meter.refused()
		http.Error(w, "this lease has ended", http.StatusGone)
		return
	}
	if !hasKey || lim == nil {
		e.meter.refused()
		w.Header().Set("WWW-Authenticate", `Bearer realm="idlegpu"`)
		http.Error(w, "a valid API key for this service is required (Authorization: Bearer igk_…)", http.StatusUnauthorized)
		return
	}
	if !lim.Allow() {
		e.meter.refused()
		w.Header().Set("Retry-After", strconv.Itoa(retryAfter(route)))
		http.Error(w, "rate limit for this key exceeded", http.StatusTooManyRequests)
		return
	}
	// The lease's end cuts whatever is still open at it: a stream, an
	// upgraded connection, a request the service is still thinking about.
	ctx, cancel := context.WithDeadline(r.Context(), route.Ends)
	defer cancel()
	st := &reqState{route: route, meter: e.meter, start: now}
	if r.Body != nil && r.Body != http.NoBody {
		st.in = &countingBody{ReadCloser: r.Body}
		r.Body = st.in
	}
	out := &countingWriter{ResponseWriter: w}
	p.rp.ServeHTTP(out, r.WithContext(context.WithValue(ctx, stateKey{}, st)))
	e.meter.bytes(st.in.count(), out.n.Load())
}

// retryAfter is when one more request fits a key's bucket, in whole
// seconds.
func retryAfter(r Route) int {
	s := int(1/float64(r.Rate) + 0.999)
	return max(1, s)
}

// rewrite sends the request to the route's target only, without the
// caller's key, with X-Forwarded-For/Host/Proto set.
func rewrite(pr *httputil.ProxyRequest) {
	st := pr.In.Context().Value(stateKey{}).(*reqState)
	pr.SetURL(st.route.Target)
	pr.SetXForwarded()
	pr.Out.Header.Del("Authorization")
}

// modifyResponse meters an answer: its latency, and its tokens and an
// upgraded connection's bytes as they pass.
func (p *Proxy) modifyResponse(res *http.Response) error {
	st := res.Request.Context().Value(stateKey{}).(*reqState)
	st.meter.answered(p.now().Sub(st.start))
	if res.StatusCode == http.StatusSwitchingProtocols {
		if rwc, ok := res.Body.(io.ReadWriteCloser); ok {
			res.Body = &countingConn{ReadWriteCloser: rwc, meter: st.meter}
		}
		return nil
	}
	res.Body = watchUsage(res.Body, res.Header.Get("Content-Type"), st.meter.tokens)
	return nil
}

// upstreamError answers a request the lease's service did not answer.
func (p *Proxy) upstreamError(w http.ResponseWriter, r *http.Request, err error) {
	st := r.Context().Value(stateKey{}).(*reqState)
	// The proxy's own answer is not the service's traffic.
	if cw, ok := w.(*countingWriter); ok {
		w = cw.ResponseWriter
	}
	if errors.Is(r.Context().Err(), context.DeadlineExceeded) && !p.now().Before(st.route.Ends) {
		st.meter.refused()
		http.Error(w, "this lease has ended", http.StatusGone)
		return
	}
	if r.Context().Err() != nil {
		return // the caller left
	}
	st.meter.failed()
	http.Error(w, "the lease's service did not answer", http.StatusBadGateway)
}

// countingBody counts the request body bytes the service read.
type countingBody struct {
	io.ReadCloser
	n atomic.Uint64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(uint64(n))
	return n, err
}

func (b *countingBody) count() uint64 {
	if b == nil {
		return 0
	}
	return b.n.Load()
}

// countingWriter counts the body bytes written to the caller; Unwrap lets
// the reverse proxy flush and hijack through it.
type countingWriter struct {
	http.ResponseWriter
	n atomic.Uint64
}

func (w *countingWriter) Write(p []byte) (int, error) {
	n, err := w.ResponseWriter.Write(p)
	w.n.Add(uint64(n))
	return n, err
}

func (w *countingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// countingConn meters an upgraded connection to the service: what the
// proxy reads from it went out to the caller, what it writes came in.
type countingConn struct {
	io.ReadWriteCloser
	meter *Meter
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.ReadWriteCloser.Read(p)
	c.meter.bytes(0, uint64(n))
	return n, err
}

func (c *countingConn) Write(p []byte) (int, error) {
	n, err := c.ReadWriteCloser.Write(p)
	c.meter.bytes(uint64(n), 0)
	return n, err
}
