package endpoint

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// TestClientAgainstServer: the renter's client and the agent's server speak
// the same protocol; the client checks samples against the on-chain root.
func TestClientAgainstServer(t *testing.T) {
	f := setup(t)
	ctx := context.Background()
	c := NewClient(f.srv.URL+"/", f.target, f.renter, "")

	acc, err := c.SendManifest(ctx, 1, f.manifest)
	require.NoError(t, err)
	require.Equal(t, ManifestAccepted{LeaseID: 1, Accepted: true}, acc)
	require.Contains(t, f.jobs.accepted, uint64(1))
	_, err = c.SendManifest(ctx, 1, bytes.ToUpper(f.manifest))
	require.ErrorContains(t, err, "is not the job's manifest_hash")
	require.ErrorContains(t, err, "(HTTP 400)")

	st, err := c.Status(ctx, 1)
	require.NoError(t, err)
	require.Equal(t, JobStatus{LeaseID: 1, Lease: "LEASE_STATUS_ACTIVE", Running: true, EpochsProven: 2}, st)
	logs, err := c.Logs(ctx, 1, LogRange{})
	require.NoError(t, err)
	require.Equal(t, LogChunk{Data: []byte("lease 1: epoch 1 loss=0.42\n"), Offset: 0, Size: 27}, logs)

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

	stranger := NewClient(f.srv.URL, f.target, f.stranger, "")
	_, err = stranger.Logs(ctx, 1, LogRange{})
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
	_, err := NewClient(tlsSrv.URL, f.target, f.renter, hex.EncodeToString(sum[:])).Status(ctx, 1)
	require.NoError(t, err)
	_, err = NewClient(tlsSrv.URL, f.target, f.renter, strings.Repeat("ab", 32)).Status(ctx, 1)
	require.ErrorContains(t, err, "is not the pinned")
}

// A generated certificate serves TLS, and the client trusts exactly the
// pin it reports: the renter's side of `idlegpu-agent init` + register.
func TestSelfSignedCertificatePin(t *testing.T) {
	dir := t.TempDir()
	certPath, keyPath := filepath.Join(dir, "endpoint.crt"), filepath.Join(dir, "endpoint.key")
	pin, err := GenerateSelfSigned(certPath, keyPath, []string{"127.0.0.1", "gpu.example.com"}, time.Now())
	require.NoError(t, err)
	got, err := CertPin(certPath)
	require.NoError(t, err)
	require.Equal(t, pin, got)
	info, err := os.Stat(keyPath)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	_, err = GenerateSelfSigned(certPath, keyPath, nil, time.Now())
	require.Error(t, err, "an existing key is never overwritten")

	cert, err := tls.LoadX509KeyPair(certPath, keyPath)
	require.NoError(t, err)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) }))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.StartTLS()
	defer srv.Close()

	get := func(pin string) error {
		c := NewClient(srv.URL, Target{}, nil, pin)
		res, err := c.HTTP.Get(srv.URL)
		if err == nil {
			res.Body.Close()
		}
		return err
	}
	require.NoError(t, get(pin))
	require.ErrorContains(t, get(strings.Repeat("0", 64)), "is not the pinned")
}
