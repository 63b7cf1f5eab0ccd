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

// TestListenerCapsConnections: past the cap a connection waits for a slot.
func TestListenerCapsConnections(t *testing.T) {
	addr := serve(t, HTTPLimits{MaxConns: 1, IdleTimeout: time.Minute})
	first, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	_, err = first.Write([]byte("GET /x HTTP/1.1\r\nHost: a\r\n\r\n"))
	require.NoError(t, err)
	_, err = http.ReadResponse(bufio.NewReader(first), nil)
	require.NoError(t, err)

	second, err := net.Dial("tcp", addr) // queued by the kernel, not served
	require.NoError(t, err)
	defer second.Close()
	_, err = second.Write([]byte("GET /x HTTP/1.1\r\nHost: a\r\n\r\n"))
	require.NoError(t, err)
	require.NoError(t, second.SetReadDeadline(time.Now().Add(300*time.Millisecond)))
	_, err = http.ReadResponse(bufio.NewReader(second), nil)
	require.ErrorIs(t, err, os.ErrDeadlineExceeded, "no slot while the first connection is open")

	require.NoError(t, first.Close())
	require.NoError(t, second.SetReadDeadline(time.Now().Add(3*time.Second)))
	res, err := http.ReadResponse(bufio.NewReader(second), nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.StatusCode)
}
