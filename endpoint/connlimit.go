package endpoint

import (
	"net"
	"net/netip"
	"sync"
)

// hostKey groups source addresses by host: an IPv4 address (an IPv4-mapped
// IPv6 one included) is its own key, an IPv6 address counts per /64, what
// one host is usually given. An address that does not parse is its own key.
func hostKey(addr string) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	ip = ip.Unmap().WithZone("")
	if ip.Is4() {
		return ip.String()
	}
	return netip.PrefixFrom(ip, 64).Masked().String()
}

// perHostListener closes at once a connection whose host (hostKey) already
// holds max open connections, so one host cannot fill the server's
// connection cap or queue others behind its own connections.
type perHostListener struct {
	net.Listener
	max int

	mu   sync.Mutex
	open map[string]int // only hosts with open connections
}

func newPerHostListener(ln net.Listener, max int) *perHostListener {
	return &perHostListener{Listener: ln, max: max, open: map[string]int{}}
}

// Accept returns the next connection within its host's cap; those past it
// are closed without a byte read.
func (l *perHostListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		key := hostKey(c.RemoteAddr().String())
		if l.acquire(key) {
			return &hostConn{Conn: c, release: func() { l.release(key) }}, nil
		}
		_ = c.Close()
	}
}

func (l *perHostListener) acquire(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[key] >= l.max {
		return false
	}
	l.open[key]++
	return true
}

func (l *perHostListener) release(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[key]--; l.open[key] <= 0 {
		delete(l.open, key)
	}
}

// openConns is how many connections key holds.
func (l *perHostListener) openConns(key string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.open[key]
}

// hostConn gives its host's slot back on its first Close.
type hostConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *hostConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
