package main_test

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/agent/config"
	"github.com/idlegpu/idlegpu/agent/runner"
	"github.com/idlegpu/idlegpu/gateway"
	"github.com/idlegpu/idlegpu/scripts/dockertest"
	"github.com/idlegpu/idlegpu/scripts/harness"
)

// TestAgentServesALeaseThroughItsIngress follows a lease's inbound service
// end to end with real processes: idlegpud, and the agent with its docker
// runner and ingress on a dockerd that manages iptables. The offer
// publishes the ingress domain and the generated certificate's pin; a job
// that serves on port 8000 clears against it and runs on the service
// network with no host port; the renter registers a key through the
// endpoint (`idlegpud lease add-key`) and calls
// https://lease-1.<domain> through the ingress, pinned; no key, another
// key or a revoked one are refused; the route and the keys survive the
// agent's restart (SIGKILL); the lease's end ends the service and drops
// its keys.
func TestAgentServesALeaseThroughItsIngress(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a chain, dockerd and the agent (minutes)")
	}
	cli := dockertest.IptablesDaemon(t, "", runner.DefaultServiceBridge)
	image := dockertest.Registry(t, "idlegpu/busybox")
	t.Setenv("DOCKER_HOST", cli.DaemonHost())
	const domain = "gpus.test"
	ingressAddr := fmt.Sprintf("127.0.0.1:%d", harness.FreePorts(t, 1)[0])

	c := harness.NewChain(t, bins, root, harness.GenesisEdits{
		"settlement": {"epoch_seconds": "20", "sample_interval_seconds": "1", "min_samples_ratio_bps": 7000, "proof_grace_seconds": "30"},
	})
	a := harness.NewAgent(t, c, bins, harness.AgentOptions{GPUs: 1, Seed: 13, Edit: func(cfg *config.Config) {
		dockerRunner(cfg)
		cfg.Ingress = config.Ingress{Listen: ingressAddr, Domain: domain}
	}})
	defer func() {
		if t.Failed() {
			t.Logf("agent output (tail):\n%s", harness.Tail(a.Output(), 80))
			t.Logf("node output (tail):\n%s", harness.Tail(c.Node.Output(), 20))
		}
	}()

	startProvider(t, c, a, "eu-de-fra1", "ingress rack")
	var offers struct {
		Offers []struct {
			Terms struct {
				IngressDomain string `json:"ingress_domain"`
				IngressPin    string `json:"ingress_tls_cert_sha256"`
			} `json:"terms"`
		} `json:"offers"`
	}
	c.Query(&offers, "offer", "provider-offers", a.Addr)
	require.Equal(t, domain, offers.Offers[0].Terms.IngressDomain, "the offer publishes the ingress")
	pin := offers.Offers[0].Terms.IngressPin
	require.Equal(t, certPin(t, filepath.Join(a.Home, "state", "ingress.crt")), pin, "the generated certificate's pin")

	// The service: busybox's httpd on 8000, for a minute.
	m, err := json.Marshal(map[string]any{"command": []string{"sh", "-c",
		"mkdir -p /tmp/www && echo 'hello from lease 1' > /tmp/www/index.html && exec busybox httpd -f -p 8000 -h /tmp/www"}})
	require.NoError(t, err)
	manifest := filepath.Join(t.TempDir(), "job.json")
	require.NoError(t, os.WriteFile(manifest, m, 0o600))
	c.Tx("alice", "auction", "post-job", "--gpus", "1", "--model", model, "--min-memory", "80GB",
		"--region", "eu", "--tier", "bronze", "--duration", "90s", "--max-price", "1usdc/gpu-h", "--bid-window", "0",
		"--image", image, "--manifest", manifest, "--workload", "inference", "--ingress-port", "8000")
	var job struct {
		Job struct {
			Status   string   `json:"status"`
			LeaseIDs []string `json:"lease_ids"`
		} `json:"job"`
	}
	c.Query(&job, "auction", "job", "1")
	require.Equal(t, "JOB_STATUS_MATCHED", job.Job.Status)
	require.Equal(t, []string{"1"}, job.Job.LeaseIDs)

	// A key registered before the lease starts is served from its start.
	// The CLI's output holds stderr's note, then the key, alone on stdout.
	out := string(c.CLI("lease", "add-key", "1", "--from", "alice"))
	require.Contains(t, out, "lease 1 serves at https://lease-1."+domain+" to this key")
	key := lastLine(out)
	require.Regexp(t, `^igk_[A-Za-z0-9_-]{43}$`, key)
	require.Equal(t, "manifest accepted for lease 1\n", string(c.CLI("lease", "send-manifest", "1", manifest, "--from", "alice")))
	started := c.WaitLease(1, "LEASE_STATUS_ACTIVE", 60*time.Second).Start

	call := ingressClient(t, ingressAddr, pin)
	host := "lease-1." + domain
	var code int
	var body string
	harness.WaitFor(t, 30*time.Second, "the lease's service through the ingress", func() bool {
		code, body = call(host, key)
		return code == http.StatusOK
	})
	require.Equal(t, "hello from lease 1\n", body)
	// Measured for docs/benchmarks.md: from the lease's start on chain (the
	// block time of its MsgStartLease) to its hostname answering; the
	// agent routes it on its first step that sees the lease ACTIVE.
	t.Logf("lease 1 served %v after its start on chain", time.Since(started).Round(time.Millisecond))
	code, body = call(host, "")
	require.Equal(t, http.StatusUnauthorized, code, body)
	code, _ = call(host, "igk_made-up")
	require.Equal(t, http.StatusUnauthorized, code)
	code, body = call("lease-2."+domain, key)
	require.Equal(t, http.StatusNotFound, code, body)

	// The renter's gateway finds the lease's ingress on chain (hostname,
	// pin, region) and serves it at the deployment's own name.
	gw, g := gatewayFor(t, c.GRPC(), key, gateway.FileUpstream{Lease: 1, Connect: ingressAddr})
	st := g.States("chat.example.test")
	require.Len(t, st, 1)
	require.Equal(t, "https://lease-1.gpus.test", st[0].Upstream.URL.String())
	require.Equal(t, "eu-de-fra1", st[0].Upstream.Region, "the provider's region, from its offer")
	code, body = gw("chat.example.test", key)
	require.Equal(t, http.StatusOK, code, body)
	require.Equal(t, "hello from lease 1\n", body)
	code, _ = gw("chat.example.test", "igk_made-up")
	require.Equal(t, http.StatusUnauthorized, code, "the ingress's refusal is passed on, not retried")

	// The job is on the service network and nothing is published on the host.
	info, err := cli.ContainerInspect(t.Context(), runner.ContainerName(1))
	require.NoError(t, err)
	require.EqualValues(t, runner.DefaultServiceNetwork, info.HostConfig.NetworkMode)
	require.Equal(t, "8000", info.Config.Labels[runner.ServiceLabel])
	require.Empty(t, info.NetworkSettings.Ports)

	// A second key, then a restart: the adopted job is served again, to
	// both keys; then one is revoked and refused at once.
	second := lastLine(string(c.CLI("lease", "add-key", "1", "--from", "alice")))
	code, _ = call(host, second)
	require.Equal(t, http.StatusOK, code)
	a.Restart(syscall.SIGKILL)
	harness.WaitFor(t, 60*time.Second, "the service after the agent's restart", func() bool {
		code, _ = call(host, key)
		return code == http.StatusOK
	})
	code, _ = call(host, second)
	require.Equal(t, http.StatusOK, code, "keys survive the restart")
	require.Contains(t, string(c.CLI("lease", "revoke-key", "1", second, "--from", "alice")), "revoked for lease 1")
	code, _ = call(host, second)
	require.Equal(t, http.StatusUnauthorized, code, "revoked at once")
	code, _ = call(host, key)
	require.Equal(t, http.StatusOK, code, "the other key still works")

	// Someone else's wallet cannot add keys to alice's lease.
	bad, err := c.TryCLI("lease", "add-key", "1", "--from", "validator")
	require.Error(t, err)
	require.Contains(t, string(bad), "signer is not the lease's renter")

	// After the lease's end the service is gone (the ingress answers 410
	// from the end itself, agent/ingress's tests; here, once the chain has
	// completed the lease, the route is removed: 404).
	c.WaitLease(1, "LEASE_STATUS_COMPLETED", 150*time.Second)
	harness.WaitFor(t, 30*time.Second, "the route removed", func() bool {
		code, _ = call(host, key)
		return code == http.StatusNotFound
	})
	entries, err := os.ReadDir(filepath.Join(a.Home, "state", "ingress-keys"))
	require.NoError(t, err)
	require.Empty(t, entries, "the ended lease's keys are dropped")
}

// ingressClient calls the ingress at addr for a lease's hostname, trusting
// its certificate by the pin on chain as renters and gateways do.
func ingressClient(t *testing.T, addr, pin string) func(host, key string) (int, string) {
	tr := &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, addr)
		},
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true, //nolint:gosec // verified by the pin below
			VerifyPeerCertificate: func(raw [][]byte, _ [][]*x509.Certificate) error {
				if len(raw) == 0 {
					return errors.New("no certificate")
				}
				if sum := sha256.Sum256(raw[0]); hex.EncodeToString(sum[:]) != pin {
					return errors.New("certificate is not the pinned one")
				}
				return nil
			}},
		ForceAttemptHTTP2: true,
	}
	t.Cleanup(tr.CloseIdleConnections)
	hc := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	return func(host, key string) (int, string) {
		req, err := http.NewRequest(http.MethodGet, "https://"+host+"/index.html", nil)
		require.NoError(t, err)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		res, err := hc.Do(req)
		if err != nil {
			return 0, err.Error()
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
}

// certPin is the hex SHA-256 of a PEM certificate file's first certificate.
func certPin(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	block, _ := pem.Decode(b)
	require.NotNil(t, block)
	sum := sha256.Sum256(block.Bytes)
	return hex.EncodeToString(sum[:])
}

// lastLine is the last non-empty line of out.
func lastLine(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// gatewayFor runs a gateway whose deployment chat.example.test is the
// upstreams' leases, found on the chain at grpcAddr, probed each 250 ms
// with key; it returns a caller of the gateway, and the gateway.
func gatewayFor(t *testing.T, grpcAddr, key string, upstreams ...gateway.FileUpstream) (func(host, key string) (int, string), *gateway.Gateway) {
	t.Helper()
	keyFile := filepath.Join(t.TempDir(), "probe.key")
	require.NoError(t, os.WriteFile(keyFile, []byte(key+"\n"), 0o600))
	f := gateway.File{Listen: "127.0.0.1:0", ChainGRPC: grpcAddr, ProbeEvery: "250ms", Deployments: []gateway.FileDeployment{{
		Host: "chat.example.test", ProbePath: "/index.html", ProbeKeyFile: keyFile, Upstreams: upstreams,
	}}}
	cfg, err := f.Config(t.Context())
	require.NoError(t, err)
	g, err := gateway.New(cfg)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	go g.Run(ctx)
	srv := httptest.NewServer(g)
	t.Cleanup(srv.Close)
	return func(host, key string) (int, string) {
		req, err := http.NewRequest(http.MethodGet, srv.URL+"/index.html", nil)
		require.NoError(t, err)
		req.Host = host
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}, g
}
