package main_test

import (
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/agent/config"
	"github.com/idlegpu/idlegpu/agent/runner"
	"github.com/idlegpu/idlegpu/scripts/dockertest"
	"github.com/idlegpu/idlegpu/scripts/harness"
)

// TestAgentSellsEgressByPolicy follows the provider's network policy end to
// end with real processes: idlegpud, and the agent with its docker runner on
// a dockerd that manages iptables as a production one does, in front of a
// fake internet. The provider gives 50 Mbit/s per GPU; its offer publishes
// that; a job needing 60 does not clear and its deposit comes back; a job
// needing 20 runs on the firewalled egress network shaped to the lease's
// 50 Mbit/s, reaches the internet and not the host; and the agent removes
// its firewall when it stops.
func TestAgentSellsEgressByPolicy(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a chain, dockerd and the agent (minutes)")
	}
	cli := dockertest.IptablesDaemon(t, "", runner.DefaultEgressBridge)
	dockertest.FakeInternet(t)
	image := dockertest.Registry(t, "idlegpu/busybox")
	t.Setenv("DOCKER_HOST", cli.DaemonHost())
	public := &dockertest.Pong{}
	go public.Serve(dockertest.ListenInternet(t, "0.0.0.0:8080"))
	hostL, err := net.Listen("tcp4", "0.0.0.0:0")
	require.NoError(t, err)
	defer hostL.Close()
	host := &dockertest.Pong{}
	go host.Serve(hostL)
	hostPort := hostL.Addr().(*net.TCPAddr).Port

	c := harness.NewChain(t, bins, root, harness.GenesisEdits{
		"settlement": {"epoch_seconds": "20", "sample_interval_seconds": "1", "min_samples_ratio_bps": 7000, "proof_grace_seconds": "30"},
	})
	a := harness.NewAgent(t, c, bins, harness.AgentOptions{GPUs: 1, Seed: 12, Edit: func(cfg *config.Config) {
		dockerRunner(cfg)
		cfg.Runner.EgressMbpsPerGPU = 50
	}})
	defer func() {
		if t.Failed() {
			t.Logf("agent output (tail):\n%s", harness.Tail(a.Output(), 80))
			t.Logf("node output (tail):\n%s", harness.Tail(c.Node.Output(), 20))
		}
	}()

	startProvider(t, c, a, "eu-de-fra1", "egress rack")
	var offers struct {
		Offers []struct {
			Terms struct {
				EgressMbpsPerGPU uint32 `json:"egress_mbps_per_gpu"`
			} `json:"terms"`
		} `json:"offers"`
	}
	c.Query(&offers, "offer", "provider-offers", a.Addr)
	require.Equal(t, uint32(50), offers.Offers[0].Terms.EgressMbpsPerGPU, "the offer publishes the configured policy")

	// The job: what the network looks like from inside, then a connection
	// to the internet and one to the host; it stays a while so the test can
	// see how the agent attached it.
	probe := func(name, addr, port string) string {
		return `r=$(echo ping | busybox nc -w 3 ` + addr + ` ` + port + ` 2>/dev/null); ` +
			`if [ -n "$r" ]; then echo "` + name + `: $r"; else echo "` + name + `: blocked"; fi; `
	}
	script := "ls /sys/class/net; " + probe("internet", dockertest.InternetPublic, "8080") +
		probe("host", dockertest.InternetHost, strconv.Itoa(hostPort)) + "echo done; sleep 15"
	m, err := json.Marshal(map[string]any{"command": []string{"sh", "-c", script}})
	require.NoError(t, err)
	manifest := filepath.Join(t.TempDir(), "job.json")
	require.NoError(t, os.WriteFile(manifest, m, 0o600))
	post := func(minEgress string, more ...string) {
		c.Tx("alice", append([]string{"auction", "post-job", "--gpus", "1", "--model", model, "--min-memory", "80GB",
			"--region", "eu", "--tier", "bronze", "--duration", "60s", "--max-price", "1usdc/gpu-h", "--bid-window", "0",
			"--image", image, "--manifest", manifest, "--workload", "training", "--min-egress-mbps-per-gpu", minEgress}, more...)...)
	}
	var job struct {
		Job struct {
			Status   string   `json:"status"`
			LeaseIDs []string `json:"lease_ids"`
		} `json:"job"`
	}

	// More than the provider gives: no lease, and the deposit comes back.
	// post-job would refuse it (no offer fits), so the check is skipped to
	// see what the chain does with it.
	usdc := c.Balance(c.Address("alice"), "uusdc")
	post("60", "--skip-market-check")
	c.Query(&job, "auction", "job", "1")
	require.Equal(t, "JOB_STATUS_EXPIRED", job.Job.Status)
	require.Empty(t, job.Job.LeaseIDs)
	require.Equal(t, usdc, c.Balance(c.Address("alice"), "uusdc"), "the whole deposit is back")

	// Within it: the lease runs the job with the provider's rate per GPU.
	post("20")
	c.Query(&job, "auction", "job", "2")
	require.Equal(t, "JOB_STATUS_MATCHED", job.Job.Status)
	require.Equal(t, []string{"1"}, job.Job.LeaseIDs)
	require.Equal(t, "manifest accepted for lease 1\n", string(c.CLI("lease", "send-manifest", "1", manifest, "--from", "alice")))
	c.WaitLease(1, "LEASE_STATUS_ACTIVE", 60*time.Second)
	var logs string
	harness.WaitFor(t, 30*time.Second, "the job's probes", func() bool {
		out, err := c.TryCLI("lease", "logs", "1", "--from", "alice")
		logs = string(out)
		return err == nil && strings.HasSuffix(logs, "done\n")
	})
	require.Equal(t, "eth0\nlo\ninternet: pong\nhost: blocked\ndone\n", logs)
	require.Equal(t, []string{dockertest.InternetPublic + ":8080"}, public.Reached())
	require.Empty(t, host.Reached(), "nothing reached the host's listener")

	info, err := cli.ContainerInspect(t.Context(), runner.ContainerName(1))
	require.NoError(t, err)
	require.EqualValues(t, runner.DefaultEgressNetwork, info.HostConfig.NetworkMode)
	require.Equal(t, "50", info.Config.Labels[runner.EgressLabel], "1 GPU × 50 Mbit/s")
	qdiscs := hostCmd(t, "tc", "qdisc", "show", "dev", bridgePort(t, runner.DefaultEgressBridge))
	require.Contains(t, qdiscs, "rate 50Mbit", "the host side shapes what the job receives")

	// The job ends on its own; the agent closes the lease, and stopping
	// the agent takes its firewall off the host.
	c.WaitLease(1, "LEASE_STATUS_CLOSED", 120*time.Second)
	require.Contains(t, hostCmd(t, "iptables", "-w", "-S"), "IDLEGPU-EGRESS", "the running agent's firewall")
	a.Run.Stop(t, syscall.SIGTERM)
	rules := hostCmd(t, "iptables", "-w", "-S")
	require.NotContains(t, rules, "IDLEGPU-EGRESS", "the stopped agent's firewall is gone")
}

// bridgePort is the one port of a bridge (one job attached).
func bridgePort(t *testing.T, bridge string) string {
	t.Helper()
	var ports []string
	for _, line := range strings.Split(hostCmd(t, "ip", "-o", "link", "show", "master", bridge), "\n") {
		if f := strings.Fields(line); len(f) > 1 {
			ports = append(ports, strings.SplitN(strings.TrimSuffix(f[1], ":"), "@", 2)[0])
		}
	}
	require.Len(t, ports, 1, "ports of %s", bridge)
	return ports[0]
}

func hostCmd(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
	require.NoError(t, err, "%s: %s", strings.Join(args, " "), out)
	return string(out)
}
