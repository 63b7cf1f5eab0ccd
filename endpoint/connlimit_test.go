package endpoint

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestHostKey(t *testing.T) {
	for _, tc := range []struct{ addr, want string }{
		{"1.2.3.4:5", "1.2.3.4"},
		{"[::ffff:1.2.3.4]:5", "1.2.3.4"},
		{"[2001:db8:1:2:3:4:5:6]:443", "2001:db8:1:2::/64"},
		{"[2001:db8:1:2:ffff::1]:443", "2001:db8:1:2::/64"},
		{"[2001:db8:1:3::1]:443", "2001:db8:1:3::/64"},
		{"[fe80::1%eth0]:443", "fe80::/64"},
		{"2001:db8::1", "2001:db8::/64"},
		{"not an address", "not an address"},
	} {
		require.Equal(t, tc.want, hostKey(tc.addr), tc.addr)
	}
}

// TestMaxConnsPerHostStaysBelowHalf: one host never takes more than half of
// the connection cap, whatever is configured.
func TestMaxConnsPerHostStaysBelowHalf(t *testing.T) {
	for _, tc := range []struct{ in, want HTTPLimits }{
		{HTTPLimits{}, HTTPLimits{MaxConns: 256, MaxConnsPerHost: 16}},
		{HTTPLimits{MaxConns: 10, MaxConnsPerHost: 100}, HTTPLimits{MaxConns: 10, MaxConnsPerHost: 5}},
		{HTTPLimits{MaxConns: 1}, HTTPLimits{MaxConns: 1, MaxConnsPerHost: 1}},
		{HTTPLimits{MaxConns: 100, MaxConnsPerHost: 3}, HTTPLimits{MaxConns: 100, MaxConnsPerHost: 3}},
	} {
		got := tc.in.withDefaults()
		require.Equal(t, tc.want.MaxConns, got.MaxConns)
		require.Equal(t, tc.want.MaxConnsPerHost, got.MaxConnsPerHost)
	}
}

// servePerHost serves "ok" on 127.0.0.1 behind Listener and returns its
// address and per-host layer.
func servePerHost(t *testing.T, lim HTTPLimits) (string, *perHostListener) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ln, perHost := listener(raw, lim)
	srv := NewHTTPServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("ok"))
	}), lim)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return raw.Addr().String(), perHost
}

// dialFrom connects to addr from the loopback address src (Linux routes all
// of 127/8 to lo, so each address is a distinct host to the server).
func dialFrom(t *testing.T, src, addr string) net.Conn {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 5 * time.Second}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Skipf("cannot dial from %s (loopback aliases need Linux): %v", src, err)
	}
	return c
}

// get sends one request on c and reads the response.
func get(c net.Conn) (*http.Response, error) {
	if _, err := c.Write([]byte("GET /x HTTP/1.1\r\nHost: a\r\n\r\n")); err != nil {
		return nil, err
	}
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return nil, err
	}
	_, _ = io.Copy(io.Discard, res.Body)
	return res, res.Body.Close()
}

// ensureFDs raises the open-file soft limit to n, or skips.
func ensureFDs(t *testing.T, n uint64) {
	var lim syscall.Rlimit
	require.NoError(t, syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim))
	if lim.Cur >= n {
		return
	}
	old := lim
	lim.Cur = min(n, lim.Max)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Cur < n {
		t.Skipf("need %d open files, the limit is %d", n, lim.Max)
	}
	t.Cleanup(func() { _ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old) })
}

// TestOneHostCannotDelayOthers: 1,000 connections from one host that send
// half a request line and stop do not delay another host's requests, with
// the default limits: the attacker keeps its 16 slots, the rest are closed.
func TestOneHostCannotDelayOthers(t *testing.T) {
	const attackers = 1000
	ensureFDs(t, 4*attackers)
	addr, perHost := servePerHost(t, HTTPLimits{})
	for range attackers {
		c := dialFrom(t, "127.0.0.2", addr)
		t.Cleanup(func() { _ = c.Close() })
		_, _ = c.Write([]byte("GET /lea")) // the server may have closed it already
	}

	honest := &http.Client{Transport: &http.Transport{
		DisableKeepAlives: true, // a fresh connection each: each goes through Accept
		DialContext:       (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.1")}}).DialContext,
	}}
	for i := range 20 {
		start := time.Now()
		res, err := honest.Get("http://" + addr + "/x")
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, res.Body)
		require.NoError(t, res.Body.Close())
		took := time.Since(start)
		require.Equal(t, http.StatusOK, res.StatusCode)
		require.Less(t, took, 100*time.Millisecond, "honest request %d", i)
	}
	require.Equal(t, 16, perHost.openConns("127.0.0.2"), "the attacker holds its cap, no more")
}

// TestPerHostSlotsAreReleased: a host at its cap has its next connection
// closed unread; once one of its connections closes it is served again,
// and a host with no open connection is forgotten.
func TestPerHostSlotsAreReleased(t *testing.T) {
	addr, perHost := servePerHost(t, HTTPLimits{MaxConnsPerHost: 2, IdleTimeout: time.Minute})
	held := []net.Conn{dialFrom(t, "127.0.0.2", addr), dialFrom(t, "127.0.0.2", addr)}
	for _, c := range held {
		res, err := get(c) // served, and kept alive
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, res.StatusCode)
	}
	require.Equal(t, 2, perHost.openConns("127.0.0.2"))

	over := dialFrom(t, "127.0.0.2", addr)
	defer over.Close()
	require.True(t, closedWithin(t, over, 3*time.Second), "past the cap a connection is closed")
	require.Equal(t, 2, perHost.openConns("127.0.0.2"))

	require.NoError(t, held[0].Close())
	require.Eventually(t, func() bool { return perHost.openConns("127.0.0.2") == 1 }, 3*time.Second, 5*time.Millisecond)
	again := dialFrom(t, "127.0.0.2", addr)
	res, err := get(again)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, 2, perHost.openConns("127.0.0.2"))

	require.NoError(t, again.Close())
	require.NoError(t, held[1].Close())
	require.Eventually(t, func() bool {
		perHost.mu.Lock()
		defer perHost.mu.Unlock()
		return len(perHost.open) == 0
	}, 3*time.Second, 5*time.Millisecond, "hosts with no connection are forgotten")
}

// TestSlowHeadersAreCutOff: a connection that sends part of a request and
// stops is closed at ReadHeaderTimeout, giving its slot back.
func TestSlowHeadersAreCutOff(t *testing.T) {
	addr, perHost := servePerHost(t, HTTPLimits{ReadHeaderTimeout: 200 * time.Millisecond})
	c := dialFrom(t, "127.0.0.2", addr)
	defer c.Close()
	_, err := c.Write([]byte("GET /x HTTP/1.1\r\nHost: a\r\n"))
	require.NoError(t, err)
	start := time.Now()
	require.True(t, closedWithin(t, c, 3*time.Second))
	require.Less(t, time.Since(start), time.Second)
	require.Eventually(t, func() bool { return perHost.openConns("127.0.0.2") == 0 }, 3*time.Second, 5*time.Millisecond)
}
