package web

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idlegpu/idlegpu/indexer"
)

// setHead makes the server read h (or err) as the node's head from now on.
func (f *fixture) setHead(h Head, err error) {
	f.head = func(context.Context) (Head, error) { return h, err }
	f.srv.head.mu.Lock()
	f.srv.head.checked = time.Time{}
	f.srv.head.mu.Unlock()
}

var errNodeDown = status.Error(codes.Unavailable, `connection error: desc = "transport: Error while dialing: dial tcp 127.0.0.1:9090: connect: connection refused"`)

// TestHealthz: a probe or a load balancer learns that the app is not
// current, and why: the node unreachable, its newest block old (a halted
// chain or a stuck node), the index behind the node or empty.
func TestHealthz(t *testing.T) {
	f := newFixture(t, 1, 1, 0)
	now := time.Now()
	// The index's newest block, two minutes old.
	require.NoError(t, f.db.IndexBlock(context.Background(), indexer.BlockData{Height: 2, Time: now.Add(-2 * time.Minute), Proposer: "A1"}))
	for _, tc := range []struct {
		name   string
		head   Head
		err    error
		maxLag time.Duration
		code   int
		want   string
	}{
		{"current", Head{2, now.Add(-2 * time.Minute)}, nil, 3 * time.Minute, http.StatusOK, "ok indexed=2 height=2\n"},
		{"node down", Head{}, errNodeDown, 3 * time.Minute, http.StatusServiceUnavailable, "node unreachable: the node cannot be reached"},
		{"node stale", Head{2, now.Add(-2 * time.Minute)}, nil, time.Minute, http.StatusServiceUnavailable, "node stale: its newest block 2 is 2m0s old (max 1m0s)"},
		{"index behind", Head{122, now}, nil, time.Minute, http.StatusServiceUnavailable, "index behind: at block 2, 2m0s behind the node's 122 (max 1m0s)"},
	} {
		f.srv.cfg.MaxLag = tc.maxLag
		f.setHead(tc.head, tc.err)
		code, body := f.get(t, "/healthz")
		require.Equal(t, tc.code, code, tc.name)
		require.Contains(t, body, tc.want, tc.name)
	}

	// A new index that has not read a block yet.
	db, err := indexer.Open(filepath.Join(t.TempDir(), "index.db"))
	require.NoError(t, err)
	defer db.Close()
	f.srv.db = db
	f.setHead(Head{2, now}, nil)
	code, body := f.get(t, "/healthz")
	require.Equal(t, http.StatusServiceUnavailable, code)
	require.Contains(t, body, "index empty")
}

// TestBanner: every page says how fresh it is, and says so loudly when the
// node cannot be reached or its chain has stopped.
func TestBanner(t *testing.T) {
	f := newFixture(t, 1, 1, 0)
	_, body := f.get(t, "/jobs")
	require.Contains(t, body, `id="freshness">at block 1, 0 s ago · indexed to block 1`)
	require.NotContains(t, body, `role="alert"`)

	f.setHead(Head{}, errNodeDown)
	for _, path := range []string{"/", "/jobs", "/network", "/post"} {
		_, body = f.get(t, path)
		require.Contains(t, body, `id="node-down">The node cannot be reached (it may be stopped or restarting). The chain was last seen at block 1`, path)
		require.NotContains(t, body, "dial tcp", path)
	}

	f.setHead(Head{Height: 7, Time: time.Now().Add(-10 * time.Minute)}, nil)
	_, body = f.get(t, "/jobs")
	require.Contains(t, body, `id="node-stale">The chain's newest block, 7, is 10 min 0 s old`)
}

// downConn is a node's gRPC that cannot be reached.
type downConn struct{}

func (downConn) Invoke(context.Context, string, any, any, ...grpc.CallOption) error {
	return errNodeDown
}
func (downConn) NewStream(context.Context, *grpc.StreamDesc, string, ...grpc.CallOption) (grpc.ClientStream, error) {
	return nil, errNodeDown
}

// TestPagesWhenTheNodeIsDown: a job or lease the index holds is shown from
// it whatever the node's failure, under the banner; one it does not hold
// says in words that the node is needed, not the transport's error.
func TestPagesWhenTheNodeIsDown(t *testing.T) {
	f := newFixture(t, 2, 2, 3)
	f.srv.conn = downConn{}
	f.setHead(Head{}, errNodeDown)
	for _, tc := range []struct {
		path string
		code int
		want string
	}{
		{"/jobs/2", http.StatusOK, `id="job-status">completed`},
		{"/leases/2", http.StatusOK, `id="lease-paid">1.01 USDC`},
		{"/jobs/99", http.StatusBadGateway, "this page needs the node&#39;s current state, and the node cannot be reached"},
		// The market read at start is served, with its age.
		{"/", http.StatusOK, `id="market-age">Open offers as the node listed them`},
	} {
		code, body := f.get(t, tc.path)
		require.Equal(t, tc.code, code, "%s: %s", tc.path, snippet(body))
		require.Contains(t, body, tc.want, tc.path)
		require.Contains(t, body, `id="node-down"`, tc.path)
		require.NotContains(t, body, "dial tcp", tc.path)
	}
}

// TestPageDefects: unknown paths get a 404 page of the app, not the mux's
// plain text, and no other site may frame the app. (Ids past int64 and the
// static directory are in TestPageErrors.)
func TestPageDefects(t *testing.T) {
	f := newFixture(t, 1, 1, 1)
	code, body := f.get(t, "/no-such-page")
	require.Equal(t, http.StatusNotFound, code)
	require.Contains(t, body, "no page /no-such-page")
	require.Contains(t, body, `<nav>`, "the 404 is a page of the app")

	res := f.do(t, "/")
	require.Contains(t, res.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'")
	require.Equal(t, "nosniff", res.Header.Get("X-Content-Type-Options"))
}
