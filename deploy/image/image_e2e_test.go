package imagetest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/agent/config"
	"github.com/idlegpu/idlegpu/scripts/dockertest"
	"github.com/idlegpu/idlegpu/scripts/harness"
)

const (
	model = "NVIDIA H100 80GB HBM3"
	// askPreemptible is the agent's default preemptible price per GPU-hour
	// (uusdc): what a single candidate is paid for BRONZE work.
	askPreemptible = 900_000
	// jobSeconds is the lease: two of the chain's 10 s epochs.
	jobSeconds = 20
)

// root is the repository root (scripts/node.sh makes the chain's home).
var root, _ = filepath.Abs("../..")

// TestImageProvesALease runs the agent only from the image, as a provider
// runs it: init, register and doctor each in a container of their own, then
// `run` detached with simulated GPUs and the docker runner on the host's
// daemon. A renter's job on a development chain on the host is leased to
// it; its job runs as a sibling container; both epochs are proven and the
// payment, less the take, is claimed into the provider's account.
func TestImageProvesALease(t *testing.T) {
	image := os.Getenv("IDLEGPU_IMAGE")
	if image == "" {
		t.Skip("IDLEGPU_IMAGE names no agent image: `make image-check` builds one on a private dockerd and runs this test on it")
	}
	idlegpud := os.Getenv("IDLEGPUD")
	if idlegpud == "" {
		t.Fatal("IDLEGPU_IMAGE is set but IDLEGPUD is not: it names the node binary (make build's build/idlegpud)")
	}
	cli := dockertest.Daemon(t)
	if _, err := cli.ImageInspect(context.Background(), image); err != nil {
		t.Fatalf("IDLEGPU_IMAGE %s is not on the test's daemon (%s): %v", image, cli.DaemonHost(), err)
	}
	// The job's image, pulled by the daemon by the digest the job pins.
	jobImage := dockertest.Registry(t, "idlegpu/busybox")

	c := harness.NewChain(t, harness.Binaries{Idlegpud: idlegpud}, root, harness.GenesisEdits{
		"settlement": {"epoch_seconds": "10", "sample_interval_seconds": "1", "min_samples_ratio_bps": 7000, "proof_grace_seconds": "30"},
	})
	p := newProvider(t, cli, image)

	// init in the image: the key in the file keyring, its passphrase from
	// the secret (recorded as key.passphrase_file for the commands after).
	out := p.must("init", "--node", c.RPC, "--chain-id", c.ChainID, "--gpu-backend", "sim",
		"--keyring-passphrase-file", secretPath, "--endpoint-host", "127.0.0.1", "--gpus", "1")
	m := regexp.MustCompile(`agent key "agent": (\S+)`).FindStringSubmatch(out)
	require.NotNil(t, m, "init names the agent's address:\n%s", out)
	addr := m[1]

	// The operator's edits: one simulated GPU, loopback ports, small job
	// limits for this machine and a claim every few seconds.
	ports := harness.FreePorts(t, 2)
	endpoint := "https://127.0.0.1:" + strconv.Itoa(ports[0])
	editConfig(t, filepath.Join(p.home, "agent.toml"), func(cfg *config.Config) {
		cfg.GPU.SimCount, cfg.GPU.SimSeed = 1, 5
		cfg.Endpoint.Listen = "127.0.0.1:" + strconv.Itoa(ports[0])
		cfg.Metrics.Listen = "127.0.0.1:" + strconv.Itoa(ports[1])
		cfg.Runner.CPUCoresPerGPU, cfg.Runner.MemoryMiBPerGPU, cfg.Runner.DiskGiBPerGPU = 1, 512, 1
		cfg.Runner.MaxImageBytes = 1 << 30
		cfg.Rewards.ClaimEvery = "5s"
	})
	// The image's HEALTHCHECK reads /healthz on metrics.listen's port.
	p.env = []string{"IDLEGPU_HEALTH_PORT=" + strconv.Itoa(ports[1])}

	c.Tx("alice", "bank", "send", "alice", addr, "500000000ugpu")
	out = p.must("register", "--region", "eu-de-fra1", "--endpoint", endpoint, "--bond", "200000000ugpu", "--moniker", "image rack")
	require.Contains(t, out, "GPU-", "register names the GPU it registered:\n%s", out)

	id := p.start("idlegpu-image-e2e")
	defer func() {
		if t.Failed() {
			t.Logf("agent container output (tail):\n%s", harness.Tail(p.logs(id), 60))
			t.Logf("node output (tail):\n%s", harness.Tail(c.Node.Output(), 20))
		}
	}()
	var offers struct {
		Offers []struct {
			Status string `json:"status"`
		} `json:"offers"`
	}
	harness.WaitFor(t, 90*time.Second, "the agent's offer", func() bool {
		c.Query(&offers, "offer", "provider-offers", addr)
		return len(offers.Offers) == 1 && offers.Offers[0].Status == "OFFER_STATUS_OPEN"
	})

	// doctor in the image, beside the running agent: the daemon answers the
	// agent user through the mounted socket (this daemon has no NVIDIA
	// runtime, the one check that fails here), the chain and the endpoint
	// with its pinned certificate are reached.
	out, code := p.run("doctor", "--provider", addr)
	require.EqualValues(t, 1, code, "doctor fails only for the NVIDIA runtime:\n%s", out)
	require.Regexp(t, `(?m)^warn  gpu backend +sim: 1 SIMULATED GPUs`, out)
	require.Regexp(t, `(?m)^ok    audits +sim: answered with the CPU reference$`, out)
	require.Regexp(t, `(?m)^FAIL  container runtime +docker \S+ has no nvidia runtime: install the NVIDIA Container Toolkit$`, out)
	require.Regexp(t, `(?m)^ok    clock `, out)
	require.Regexp(t, `(?m)^ok    endpoint +`+regexp.QuoteMeta(endpoint)+` reachable, certificate matches the pin$`, out)
	require.Equal(t, 1, strings.Count(out, "FAIL "), "one check fails:\n%s", out)

	// The renter's job wins the agent's offer at once.
	manifest := filepath.Join(t.TempDir(), "manifest.json")
	b, err := json.Marshal(map[string]any{"command": []string{"sh", "-c", `echo "job of lease $IDLEGPU_LEASE_ID on $CUDA_VISIBLE_DEVICES"; while :; do sleep 1; done`}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(manifest, b, 0o600))
	c.Tx("alice", "auction", "post-job", "--gpus", "1", "--model", model, "--min-memory", "80GB",
		"--region", "eu", "--tier", "bronze", "--duration", strconv.Itoa(jobSeconds)+"s", "--max-price", "1usdc/gpu-h", "--bid-window", "0",
		"--image", jobImage, "--manifest", manifest, "--workload", "training")
	l := c.Lease(1)
	require.Equal(t, addr, l.Provider, "the image's agent won the lease")
	require.Contains(t, string(c.CLI("lease", "send-manifest", "1", manifest, "--from", "alice")), "manifest accepted for lease 1")
	l = c.WaitLease(1, "LEASE_STATUS_ACTIVE", 60*time.Second)
	harness.WaitFor(t, 30*time.Second, "the job's first line", func() bool {
		logs, err := c.TryCLI("lease", "logs", "1", "--from", "alice")
		return err == nil && strings.Contains(string(logs), "job of lease 1 on "+l.GPUs[0])
	})

	// Every epoch proven and paid to the unit; the agent claims the payment
	// less the take into the provider's account.
	l = c.WaitLease(1, "LEASE_STATUS_COMPLETED", 120*time.Second)
	var prog struct {
		Progress struct {
			ProvenEpochs string `json:"proven_epochs"`
			MissedEpochs string `json:"missed_epochs"`
		} `json:"progress"`
	}
	c.Query(&prog, "settlement", "progress", "1")
	require.Equal(t, "2", prog.Progress.ProvenEpochs)
	require.Empty(t, strings.TrimLeft(prog.Progress.MissedEpochs, "0"), "no epoch missed")
	paid := int64(askPreemptible * jobSeconds / 3600)
	require.Equal(t, paid, l.Paid.Int(), "paid = floor(price × 1 GPU × %d s / 3600)", jobSeconds)
	var sp struct {
		Params struct {
			TakeRateBps uint32 `json:"take_rate_bps"`
		} `json:"params"`
	}
	c.Query(&sp, "settlement", "params")
	earned := paid - paid*int64(sp.Params.TakeRateBps)/10_000
	harness.WaitFor(t, 30*time.Second, "the payment claimed", func() bool { return c.Balance(addr, "uusdc") == earned })

	// The image's HEALTHCHECK reads the running agent's /healthz.
	harness.WaitFor(t, 60*time.Second, "the container healthy", func() bool { return p.health(id) == "healthy" })
}

// editConfig changes the agent's configuration as its operator would,
// leaving the file the image's user's.
func editConfig(t *testing.T, path string, edit func(*config.Config)) {
	t.Helper()
	cfg, err := config.Load(path)
	require.NoError(t, err)
	edit(&cfg)
	b, err := cfg.Marshal()
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, b, 0o600))
	require.NoError(t, os.Chown(path, agentUID, agentUID))
}
