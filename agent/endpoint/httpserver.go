package endpoint

import (
	"net"
	"net/http"
	"time"

	"golang.org/x/net/netutil"
)

// HTTPLimits are the endpoint server's timeouts and connection cap; zero
// fields take DefaultHTTPLimits'.
type HTTPLimits struct {
	// ReadHeaderTimeout bounds reading a request's headers.
	ReadHeaderTimeout time.Duration
	// ReadTimeout bounds reading a whole request (a body is at most MaxBody).
	ReadTimeout time.Duration
	// WriteTimeout bounds writing a response (an epoch's samples are a few MB).
	WriteTimeout time.Duration
	// IdleTimeout closes a keep-alive connection that sends nothing.
	IdleTimeout time.Duration
	// MaxConns caps open connections; more wait in the kernel's backlog.
	MaxConns int
}

// DefaultHTTPLimits suit a renter on a slow link and a machine with few cores.
func DefaultHTTPLimits() HTTPLimits {
	return HTTPLimits{ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: 2 * time.Minute,
		IdleTimeout: time.Minute, MaxConns: 256}
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
	return l
}

// NewHTTPServer returns a server for h with lim's timeouts: without them a
// body that never finishes or an idle keep-alive connection is held forever.
func NewHTTPServer(h http.Handler, lim HTTPLimits) *http.Server {
	lim = lim.withDefaults()
	return &http.Server{Handler: h, ReadHeaderTimeout: lim.ReadHeaderTimeout, ReadTimeout: lim.ReadTimeout,
		WriteTimeout: lim.WriteTimeout, IdleTimeout: lim.IdleTimeout, MaxHeaderBytes: 64 << 10}
}

// Listener caps ln at lim.MaxConns open connections. Wrap the TCP listener,
// under any TLS: a handshake holds a slot too.
func Listener(ln net.Listener, lim HTTPLimits) net.Listener {
	return netutil.LimitListener(ln, lim.withDefaults().MaxConns)
}
