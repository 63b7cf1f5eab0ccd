package endpoint

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func serve(t *testing.T, lim HTTPLimits) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := NewHTTPServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		_, _ = w.Write([]byte("ok"))
	}), lim)
	go func() { _ = srv.Serve(Listener(ln, lim)) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().String()
}

// closedWithin reports whether the server closes c within d.
func closedWithin(t *testing.T, c net.Conn, d time.Duration) bool {
	require.NoError(t, c.SetReadDeadline(time.Now().Add(d)))
	_, err := io.ReadAll(c)
	return !errors.Is(err, os.ErrDeadlineExceeded)
}

// TestHTTPServerDropsSlowBodiesAndIdleConnections: a body that never
// finishes and an idle keep-alive connection are both closed.
func TestHTTPServerDropsSlowBodiesAndIdleConnections(t *testing.T) {
	addr := serve(t, HTTPLimits{ReadTimeout: 300 * time.Millisecond, IdleTimeout: 300 * time.Millisecond})
	slow, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer slow.Close()
	_, err = slow.Write([]byte("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 100\r\n\r\nabc"))
	require.NoError(t, err)
	require.True(t, closedWithin(t, slow, 3*time.Second), "an unfinished body is cut off")

	idle, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer idle.Close()
	_, err = idle.Write([]byte("GET /x HTTP/1.1\r\nHost: a\r\n\r\n"))
	require.NoError(t, err)
	res, err := http.ReadResponse(bufio.NewReader(idle), nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.True(t, closedWithin(t, idle, 3*time.Second), "an idle keep-alive connection is closed")
}

// TestListenerCapsConnections: past the total cap a connection waits for a
// slot (each host here is within its own cap).
func TestListenerCapsConnections(t *testing.T) {
	addr := serve(t, HTTPLimits{MaxConns: 2, IdleTimeout: time.Minute})
	var held []net.Conn
	for _, src := range []string{"127.0.0.1", "127.0.0.2"} {
		c := dialFrom(t, src, addr)
		defer c.Close()
		res, err := get(c)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, res.StatusCode)
		held = append(held, c)
	}

	third := dialFrom(t, "127.0.0.3", addr) // queued by the kernel, not served
	defer third.Close()
	_, err := third.Write([]byte("GET /x HTTP/1.1\r\nHost: a\r\n\r\n"))
	require.NoError(t, err)
	require.NoError(t, third.SetReadDeadline(time.Now().Add(300*time.Millisecond)))
	_, err = http.ReadResponse(bufio.NewReader(third), nil)
	require.ErrorIs(t, err, os.ErrDeadlineExceeded, "no slot while both connections are open")

	require.NoError(t, held[0].Close())
	require.NoError(t, third.SetReadDeadline(time.Now().Add(3*time.Second)))
	res, err := http.ReadResponse(bufio.NewReader(third), nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.StatusCode)
}
