package endpoint

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cosmos/cosmos-sdk/crypto/keys/secp256k1"
	"github.com/stretchr/testify/require"
)

// countingLeases counts chain lookups and can fail them.
type countingLeases struct {
	leases
	n   atomic.Int64
	err error
}

func (c *countingLeases) Lease(ctx context.Context, id uint64) (Lease, error) {
	c.n.Add(1)
	if c.err != nil {
		return Lease{}, c.err
	}
	return c.leases.Lease(ctx, id)
}

func limitedFixture(t *testing.T, lim Limits) (*fixture, *countingLeases) {
	f := setup(t)
	cl := &countingLeases{leases: leases{1: {ID: 1, Renter: f.renter.addr(), Status: "LEASE_STATUS_ACTIVE"}}}
	srv := httptest.NewServer(NewServer(f.target, cl, f.jobs, slog.New(slog.NewTextHandler(io.Discard, nil)), WithLimits(lim)).Handler())
	t.Cleanup(srv.Close)
	f.srv = srv
	return f, cl
}

// TestThrowawaySignersCostOneLookup: signatures from keys that are not the
// renter are refused from what the endpoint already knows of the lease (or
// of its absence), not with a chain query each.
func TestThrowawaySignersCostOneLookup(t *testing.T) {
	f, cl := limitedFixture(t, Limits{IPRate: 1000, IPBurst: 1000})
	now := time.Now()
	for range 50 {
		code, _ := f.do(t, key{secp256k1.GenPrivKey()}, "GET", "/v1/leases/1/status", nil, now, "")
		require.Equal(t, http.StatusForbidden, code)
	}
	require.Equal(t, int64(1), cl.n.Load())
	for range 50 {
		code, body := f.do(t, key{secp256k1.GenPrivKey()}, "GET", "/v1/leases/7/status", nil, now, "")
		require.Equal(t, http.StatusNotFound, code)
		require.JSONEq(t, `{"error":"lease 7 not found at this provider"}`, body)
	}
	require.Equal(t, int64(2), cl.n.Load(), "a missing lease is remembered briefly")
	code, _ := f.do(t, f.renter, "GET", "/v1/leases/1/status", nil, now, "")
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, int64(3), cl.n.Load(), "the renter's request reads the lease fresh")
}

// TestLookupErrorsAreNotEchoed: a failing chain query is logged, and the
// renter gets a fixed answer.
func TestLookupErrorsAreNotEchoed(t *testing.T) {
	f, cl := limitedFixture(t, Limits{})
	cl.err = errors.New("rpc error: code = Unavailable desc = dial tcp 10.0.0.7:9090")
	code, body := f.do(t, f.renter, "GET", "/v1/leases/1/status", nil, time.Now(), "")
	require.Equal(t, http.StatusServiceUnavailable, code)
	require.JSONEq(t, `{"error":"lease lookup failed, retry later"}`, body)
}

// TestRateLimits: one source, and one renter, get a burst and then 429.
func TestRateLimits(t *testing.T) {
	f, _ := limitedFixture(t, Limits{IPRate: 0.001, IPBurst: 3, RenterRate: 1000, RenterBurst: 1000})
	now := time.Now()
	for range 3 {
		code, _ := f.do(t, nil, "GET", "/v1/leases/1/status", nil, now, "")
		require.Equal(t, http.StatusUnauthorized, code)
	}
	code, body := f.do(t, f.renter, "GET", "/v1/leases/1/status", nil, now, "")
	require.Equal(t, http.StatusTooManyRequests, code, body)

	f, _ = limitedFixture(t, Limits{IPRate: 1000, IPBurst: 1000, RenterRate: 0.001, RenterBurst: 2})
	for range 2 {
		code, _ := f.do(t, f.renter, "GET", "/v1/leases/1/status", nil, now, "")
		require.Equal(t, http.StatusOK, code)
	}
	code, body = f.do(t, f.renter, "GET", "/v1/leases/1/status", nil, now, "")
	require.Equal(t, http.StatusTooManyRequests, code, body)
	code, _ = f.do(t, f.stranger, "GET", "/v1/leases/1/status", nil, now, "")
	require.Equal(t, http.StatusForbidden, code, "another signer has its own bucket")
}

// TestBucketsStayBounded: the table forgets its least recently used key.
func TestBucketsStayBounded(t *testing.T) {
	b := newBuckets(1, 1, 2)
	now := time.Unix(1_700_000_000, 0)
	require.True(t, b.allow("a", now))
	require.False(t, b.allow("a", now))
	require.True(t, b.allow("b", now))
	require.True(t, b.allow("c", now))
	require.Equal(t, 2, b.len())
	require.True(t, b.allow("a", now), "a was evicted: a fresh bucket")
}
