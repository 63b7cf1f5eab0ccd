package endpoint

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// TestClientAgainstServer: the renter's client and the agent's server speak
// the same protocol; the client checks samples against the on-chain root.
func TestClientAgainstServer(t *testing.T) {
	f := setup(t)
	ctx := context.Background()
	c := NewClient(f.srv.URL+"/", f.renter, "")

	require.NoError(t, c.SendManifest(ctx, 1, f.manifest))
	require.Contains(t, f.jobs.accepted, uint64(1))
	err := c.SendManifest(ctx, 1, bytes.ToUpper(f.manifest))
	require.ErrorContains(t, err, "is not the job's manifest_hash")
	require.ErrorContains(t, err, "(HTTP 400)")

	st, err := c.Status(ctx, 1)
	require.NoError(t, err)
	require.Equal(t, JobStatus{LeaseID: 1, Lease: "LEASE_STATUS_ACTIVE", Running: true, EpochsProven: 2}, st)
	logs, err := c.Logs(ctx, 1)
	require.NoError(t, err)
	require.Equal(t, "lease 1: epoch 1 loss=0.42\n", string(logs))

	leaves, err := settlementtypes.SampleLeaves(f.jobs.samples)
	require.NoError(t, err)
	root := settlementtypes.MerkleRoot(leaves)
	got, err := c.Samples(ctx, 1, 0, root)
	require.NoError(t, err)
	require.Len(t, got.Samples, 5)
	bad := append([]byte(nil), root...)
	bad[0] ^= 1
	_, err = c.Samples(ctx, 1, 0, bad)
	require.ErrorContains(t, err, "is not the proof's")

	stranger := NewClient(f.srv.URL, f.stranger, "")
	_, err = stranger.Logs(ctx, 1)
	require.ErrorContains(t, err, "HTTP 403")
}

// TestClientPinsTheRegisteredCertificate: over https the client trusts the
// certificate whose sha256 the provider registered, and nothing else.
func TestClientPinsTheRegisteredCertificate(t *testing.T) {
	f := setup(t)
	tlsSrv := httptest.NewTLSServer(f.srv.Config.Handler)
	defer tlsSrv.Close()
	sum := sha256.Sum256(tlsSrv.Certificate().Raw)
	ctx := context.Background()
	_, err := NewClient(tlsSrv.URL, f.renter, hex.EncodeToString(sum[:])).Status(ctx, 1)
	require.NoError(t, err)
	_, err = NewClient(tlsSrv.URL, f.renter, strings.Repeat("ab", 32)).Status(ctx, 1)
	require.ErrorContains(t, err, "is not the pinned")
}
