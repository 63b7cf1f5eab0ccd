package endpoint

import (
	"net"
	"net/http"
	"time"

	"golang.org/x/net/netutil"
)

// HTTPLimits are the endpoint server's timeouts and connection caps; zero
// fields take DefaultHTTPLimits'.
type HTTPLimits struct {
	// ReadHeaderTimeout bounds a connection's TLS handshake and reading a
	// request's headers: a sender too slow for that holds a slot no longer.
	ReadHeaderTimeout time.Duration
	// ReadTimeout bounds reading a whole request (a body is at most MaxBody).
	ReadTimeout time.Duration
	// WriteTimeout bounds writing a response (an epoch's samples are a few MB).
	WriteTimeout time.Duration
	// IdleTimeout closes a keep-alive connection that sends nothing.
	IdleTimeout time.Duration
	// MaxConns caps open connections; more wait in the kernel's backlog.
	MaxConns int
	// MaxConnsPerHost caps one host's open connections (an IPv6 host counts
	// per /64); more are closed at once. It is held below MaxConns/2, so
	// one host never takes more than half of the slots.
	MaxConnsPerHost int
}

// DefaultHTTPLimits suit a renter on a slow link and a machine with few
// cores: a renter polls with a handful of connections, so 16 per host is
// ample, and 5 s is long for a few hundred bytes of headers.
func DefaultHTTPLimits() HTTPLimits {
	return HTTPLimits{ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: 2 * time.Minute,
		IdleTimeout: time.Minute, MaxConns: 256, MaxConnsPerHost: 16}
}

func (l HTTPLimits) withDefaults() HTTPLimits {
	d := DefaultHTTPLimits()
	for _, f := range []struct{ v, def *time.Duration }{{&l.ReadHeaderTimeout, &d.ReadHeaderTimeout}, {&l.ReadTimeout, &d.ReadTimeout},
		{&l.WriteTimeout, &d.WriteTimeout}, {&l.IdleTimeout, &d.IdleTimeout}} {
		if *f.v == 0 {
			*f.v = *f.def
		}
	}
	if l.MaxConns == 0 {
		l.MaxConns = d.MaxConns
	}
	if l.MaxConnsPerHost == 0 {
		l.MaxConnsPerHost = d.MaxConnsPerHost
	}
	l.MaxConnsPerHost = max(1, min(l.MaxConnsPerHost, l.MaxConns/2))
	return l
}

// NewHTTPServer returns a server for h with lim's timeouts: without them a
// body that never finishes or an idle keep-alive connection is held forever.
func NewHTTPServer(h http.Handler, lim HTTPLimits) *http.Server {
	lim = lim.withDefaults()
	return &http.Server{Handler: h, ReadHeaderTimeout: lim.ReadHeaderTimeout, ReadTimeout: lim.ReadTimeout,
		WriteTimeout: lim.WriteTimeout, IdleTimeout: lim.IdleTimeout, MaxHeaderBytes: 64 << 10}
}

// Listener caps ln at lim.MaxConnsPerHost open connections per host and
// lim.MaxConns in all. Wrap the TCP listener, under any TLS: a handshake
// holds a slot too. The per-host cap is applied first, so a host's excess
// connections are closed rather than queued in front of other hosts'.
func Listener(ln net.Listener, lim HTTPLimits) net.Listener {
	capped, _ := listener(ln, lim)
	return capped
}

// listener is Listener, and its per-host layer for tests to look into.
func listener(ln net.Listener, lim HTTPLimits) (net.Listener, *perHostListener) {
	lim = lim.withDefaults()
	perHost := newPerHostListener(ln, lim.MaxConnsPerHost)
	return netutil.LimitListener(perHost, lim.MaxConns), perHost
}
