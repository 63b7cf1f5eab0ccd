package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// leases stands for the chain: each lease's ingress as its offer states it.
type leases map[uint64]LeaseIngress

func (l leases) LeaseIngress(_ context.Context, id uint64) (LeaseIngress, error) {
	in, ok := l[id]
	if !ok {
		return LeaseIngress{}, fmt.Errorf("lease %d is LEASE_STATUS_COMPLETED: it serves nothing", id)
	}
	return in, nil
}

// TestUpstreamsFoundOnChain: an upstream named by its lease alone gets the
// lease's hostname, its provider's region and its ingress's pin from the
// chain; the gateway then trusts that ingress by the pin only, dials it
// where connect says, and refuses a certificate that is not the pinned one
// or (unpinned) not signed by a root it trusts.
func TestUpstreamsFoundOnChain(t *testing.T) {
	ingress := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "served %s", r.Host)
	}))
	defer ingress.Close()
	sum := sha256.Sum256(ingress.Certificate().Raw)
	pin := hex.EncodeToString(sum[:])
	addr := ingress.Listener.Addr().String()

	dir := t.TempDir()
	keyFile := filepath.Join(dir, "probe.key")
	require.NoError(t, os.WriteFile(keyFile, []byte("igk_probe\n"), 0o600))
	file := func(upstreams ...FileUpstream) File {
		return File{Listen: "127.0.0.1:0", Deployments: []FileDeployment{{Host: "chat.example.com", ProbePath: "/v1/models", ProbeKeyFile: keyFile, Upstreams: upstreams}}}
	}
	chain := leases{
		7: {URL: &url.URL{Scheme: "https", Host: "lease-7.gpus.test"}, Pin: pin, Region: "eu-de-fra1"},
		8: {URL: &url.URL{Scheme: "https", Host: "lease-8.other.test"}, Pin: "00" + pin[2:], Region: "na-us"},
		9: {URL: &url.URL{Scheme: "https", Host: "lease-9.ca.test"}, Region: "eu"},
	}

	cfg, err := file(FileUpstream{Lease: 7, Connect: addr}, FileUpstream{Lease: 8, Connect: addr, Region: "mine"}, FileUpstream{Lease: 9, Connect: addr}).
		ConfigWith(t.Context(), chain)
	require.NoError(t, err)
	ups := cfg.Deployments[0].Upstreams
	require.Equal(t, "https://lease-7.gpus.test", ups[0].URL.String())
	require.Equal(t, "eu-de-fra1", ups[0].Region, "the provider's region from its offer")
	require.Equal(t, "mine", ups[1].Region, "a region configured is kept")

	get := func(u *url.URL) (string, error) {
		res, err := (&http.Client{Transport: cfg.Transport, Timeout: 5 * time.Second}).Get(u.String() + "/")
		if err != nil {
			return "", err
		}
		defer res.Body.Close()
		b := make([]byte, 64)
		n, _ := res.Body.Read(b)
		return string(b[:n]), nil
	}
	body, err := get(ups[0].URL)
	require.NoError(t, err)
	require.Equal(t, "served lease-7.gpus.test", body, "pinned, dialled at connect, named by the lease")
	_, err = get(ups[1].URL)
	require.ErrorContains(t, err, "not the pinned "+"00"+pin[2:])
	_, err = get(ups[2].URL)
	require.ErrorContains(t, err, "x509: certificate is valid for example.com, *.example.com, not lease-9.ca.test", "no pin: verified as a CA's certificate")

	// An unpinned ingress under a certificate the roots (ca_file) sign for
	// its name is trusted; one they do not sign is not.
	chain[11] = LeaseIngress{URL: &url.URL{Scheme: "https", Host: "lease-11.example.com"}}
	f := file(FileUpstream{Lease: 11, Connect: addr})
	cfg, err = f.ConfigWith(t.Context(), chain)
	require.NoError(t, err)
	_, err = get(cfg.Deployments[0].Upstreams[0].URL)
	require.ErrorContains(t, err, "x509: certificate signed by unknown authority")
	f.CAFile = filepath.Join(dir, "ca.pem")
	require.NoError(t, os.WriteFile(f.CAFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ingress.Certificate().Raw}), 0o600))
	cfg, err = f.ConfigWith(t.Context(), chain)
	require.NoError(t, err)
	body, err = get(cfg.Deployments[0].Upstreams[0].URL)
	require.NoError(t, err)
	require.Equal(t, "served lease-11.example.com", body)

	_, err = file(FileUpstream{Lease: 10}).ConfigWith(t.Context(), chain)
	require.ErrorContains(t, err, "deployment chat.example.com: lease 10 is LEASE_STATUS_COMPLETED: it serves nothing")
	_, err = file(FileUpstream{Lease: 7}).ConfigWith(t.Context(), nil)
	require.ErrorContains(t, err, "upstream 7 has no url and no chain_grpc to find it on")
}
