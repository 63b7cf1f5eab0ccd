package main_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
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

// sseServer is a job that answers every request on 8000 with a stream of
// three server-sent events naming its lease, a fifth of a second apart:
// the path of a token stream without a model.
const sseServer = `cat > /tmp/sse.sh <<'END'
while read -r line; do case "$line" in "$(printf '\r')"|"") break;; esac; done
printf 'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n'
for i in 1 2 3; do printf 'data: {"token":%d,"lease":%s}\n\n' "$i" "$IDLEGPU_LEASE_ID"; sleep 0.2; done
END
exec busybox nc -ll -p 8000 -e sh /tmp/sse.sh`

// TestInferenceOnTwoProvidersThroughTheGateway is a renter's deployment on
// two providers in two regions, with real processes: idlegpud, two agents
// with docker runners and ingresses on a dockerd that manages iptables,
// and the renter's gateway, which finds both leases on chain. One key,
// issued by the renter and registered on both leases, streams through each
// provider's ingress over TLS and through the gateway; when the agent of
// the lease the gateway prefers is killed, every request is answered by
// the other, the first of them taking the dead lease out of rotation.
func TestInferenceOnTwoProvidersThroughTheGateway(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a chain, dockerd and two agents (minutes)")
	}
	cli := dockertest.IptablesDaemon(t, "", runner.DefaultServiceBridge)
	image := dockertest.Registry(t, "idlegpu/busybox")
	t.Setenv("DOCKER_HOST", cli.DaemonHost())
	c := harness.NewChain(t, bins, root, harness.GenesisEdits{
		"settlement": {"epoch_seconds": "20", "sample_interval_seconds": "1", "min_samples_ratio_bps": 7000, "proof_grace_seconds": "30"},
	})

	type provider struct {
		a       *harness.Agent
		region  string
		ingress string
	}
	ports := harness.FreePorts(t, 2)
	var ps []provider
	for i, region := range []string{"eu-de-fra1", "na-us-va1"} {
		ingress := fmt.Sprintf("127.0.0.1:%d", ports[i])
		domain := strings.SplitN(region, "-", 2)[0] + ".gpus.test"
		a := harness.NewAgent(t, c, bins, harness.AgentOptions{GPUs: 1, Seed: int64(20 + i), Edit: func(cfg *config.Config) {
			dockerRunner(cfg)
			cfg.Ingress = config.Ingress{Listen: ingress, Domain: domain}
		}})
		ps = append(ps, provider{a: a, region: region, ingress: ingress})
	}
	defer func() {
		if t.Failed() {
			for _, p := range ps {
				t.Logf("agent in %s (tail):\n%s", p.region, harness.Tail(p.a.Output(), 40))
			}
		}
	}()
	for _, p := range ps {
		startProvider(t, c, p.a, p.region, "rack "+p.region)
	}

	// One job per region: lease 1 in eu, lease 2 in na.
	m, err := json.Marshal(map[string]any{"command": []string{"sh", "-c", sseServer}})
	require.NoError(t, err)
	manifest := filepath.Join(t.TempDir(), "job.json")
	require.NoError(t, os.WriteFile(manifest, m, 0o600))
	for i, region := range []string{"eu", "na"} {
		c.Tx("alice", "auction", "post-job", "--gpus", "1", "--model", model, "--min-memory", "80GB",
			"--region", region, "--tier", "bronze", "--duration", "180s", "--max-price", "1usdc/gpu-h", "--bid-window", "0",
			"--image", image, "--manifest", manifest, "--workload", "inference", "--ingress-port", "8000")
		lease := fmt.Sprint(i + 1)
		require.Equal(t, "manifest accepted for lease "+lease+"\n", string(c.CLI("lease", "send-manifest", lease, manifest, "--from", "alice")))
	}
	for id, p := range map[int]provider{1: ps[0], 2: ps[1]} {
		l := c.WaitLease(id, "LEASE_STATUS_ACTIVE", 60*time.Second)
		require.Equal(t, p.a.Addr, l.Provider, "lease %d is %s's", id, p.region)
	}

	// One key for the deployment, registered on both leases.
	key := lastLine(string(c.CLI("lease", "add-key", "1", "--from", "alice")))
	require.Equal(t, key, lastLine(string(c.CLI("lease", "add-key", "2", key, "--from", "alice"))))

	call, g := gatewayFor(t, c.GRPC(), key,
		gateway.FileUpstream{Lease: 1, Connect: ps[0].ingress},
		gateway.FileUpstream{Lease: 2, Connect: ps[1].ingress})
	regions := map[uint64]string{}
	for _, s := range g.States("chat.example.test") {
		regions[s.Upstream.LeaseID] = s.Upstream.Region
	}
	require.Equal(t, map[uint64]string{1: "eu-de-fra1", 2: "na-us-va1"}, regions, "each provider's region, from the chain")

	// Each lease streams through its own provider's ingress, pinned.
	for id, p := range map[int]provider{1: ps[0], 2: ps[1]} {
		direct := ingressClient(t, p.ingress, certPin(t, filepath.Join(p.a.Home, "state", "ingress.crt")))
		host := fmt.Sprintf("lease-%d.%s.gpus.test", id, strings.SplitN(p.region, "-", 2)[0])
		var code int
		var body string
		harness.WaitFor(t, 30*time.Second, host+" serving", func() bool {
			code, body = direct(host, key)
			return code == http.StatusOK
		})
		require.Equal(t, id, streamLease(t, body), host)
	}

	// Through the gateway: a stream, whole and in order, from the lease it
	// measures best. That lease's agent dies: every request is answered by
	// the other. (Out of rotation with no traffic at all, within the probe
	// bound: gateway's tests.)
	code, body := call("chat.example.test", key)
	require.Equal(t, http.StatusOK, code, body)
	first := streamLease(t, body)
	other := 3 - first
	ps[first-1].a.Run.Stop(t, syscall.SIGKILL)
	killed := time.Now()
	healthy := func(id int) bool {
		for _, s := range g.States("chat.example.test") {
			if s.Upstream.LeaseID == uint64(id) {
				return s.Healthy
			}
		}
		t.Fatalf("no upstream for lease %d", id)
		return false
	}
	for i := range 6 {
		code, body := call("chat.example.test", key)
		require.Equal(t, http.StatusOK, code, body)
		require.Equal(t, other, streamLease(t, body), "answered by the living provider")
		if i == 0 {
			// The request that found it dead took it out (or a probe did first).
			require.False(t, healthy(first), "lease %d out of rotation", first)
			t.Logf("lease %d out of rotation, its request answered by lease %d, %v after its agent was killed",
				first, other, time.Since(killed).Round(time.Millisecond))
		}
	}
	require.True(t, healthy(other))
}

// streamLease checks a stream's three events in order and returns the
// lease that sent them.
func streamLease(t *testing.T, body string) int {
	t.Helper()
	type event struct {
		Token int `json:"token"`
		Lease int `json:"lease"`
	}
	var events []event
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var e event
			require.NoError(t, json.Unmarshal([]byte(data), &e), data)
			events = append(events, e)
		}
	}
	require.Len(t, events, 3, "the whole stream: %q", body)
	for i, e := range events {
		require.Equal(t, i+1, e.Token)
		require.Equal(t, events[0].Lease, e.Lease)
	}
	return events[0].Lease
}
