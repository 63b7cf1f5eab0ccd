package main_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/agent/config"
	"github.com/idlegpu/idlegpu/scripts/dockertest"
	"github.com/idlegpu/idlegpu/scripts/harness"
)

// TestAgentRunsARealJob follows the renters' guide's data example end to
// end with real processes: idlegpud, the agent with its docker runner on a
// real dockerd, and an image pulled from a registry by the digest the job
// pins on chain. The renter posts the job, sends the manifest (answered
// at once while the agent fetches the input), the job reads its input and
// writes a checkpoint in the sandbox, the agent closes the lease when the
// job ends, and the renter lists and downloads the checkpoint through the
// idlegpud CLI. Then the operator pauses, resumes and leaves, each seen on
// chain.
func TestAgentRunsARealJob(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a chain, dockerd and the agent (minutes)")
	}
	cli := dockertest.Daemon(t)
	image := dockertest.Registry(t, "idlegpu/busybox")
	// The agent (a child process) talks to the same daemon.
	t.Setenv("DOCKER_HOST", cli.DaemonHost())

	c := harness.NewChain(t, bins, root, harness.GenesisEdits{
		"settlement": {"epoch_seconds": "20", "sample_interval_seconds": "1", "min_samples_ratio_bps": 7000, "proof_grace_seconds": "30"},
	})
	a := harness.NewAgent(t, c, bins, harness.AgentOptions{GPUs: 1, Seed: 11, Edit: func(cfg *config.Config) {
		cfg.Runner.Backend, cfg.Runner.UnsafeProcessRunner = "docker", false
		// The sandbox's limits, as init would derive them on a small machine.
		cfg.Runner.CPUCoresPerGPU, cfg.Runner.MemoryMiBPerGPU, cfg.Runner.DiskGiBPerGPU = 1, 512, 1
		cfg.Runner.MaxImageBytes = 1 << 30
		// The renter's data server is on loopback here.
		cfg.JobData.AllowPrivateNetworks = true
	}})
	defer func() {
		if t.Failed() {
			t.Logf("agent output (tail):\n%s", harness.Tail(a.Output(), 80))
			t.Logf("node output (tail):\n%s", harness.Tail(c.Node.Output(), 20))
		}
	}()

	c.Tx("alice", "bank", "send", "alice", a.Addr, "500000000ugpu")
	a.CLI("register", "--region", "eu-de-fra1", "--endpoint", a.Endpoint, "--bond", "200000000ugpu", "--moniker", "docker rack")
	a.Start()
	offerStatus := func() string {
		var offers struct {
			Offers []struct {
				Status string `json:"status"`
			} `json:"offers"`
		}
		c.Query(&offers, "offer", "provider-offers", a.Addr)
		if len(offers.Offers) != 1 {
			return ""
		}
		return offers.Offers[0].Status
	}
	harness.WaitFor(t, 60*time.Second, "the agent's offer", func() bool { return offerStatus() == "OFFER_STATUS_OPEN" })

	// The renter's data and manifest, as docs/renters.md builds them.
	csv := []byte("step,loss\n1,9\n2,5\n3,2\n")
	data := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(csv) }))
	defer data.Close()
	script, err := os.ReadFile(filepath.Join(root, "docs", "examples", "train.sh"))
	require.NoError(t, err)
	sum := sha256.Sum256(csv)
	m, err := json.Marshal(map[string]any{
		"command": []string{"sh", "-c", string(script)},
		"inputs":  []map[string]string{{"url": data.URL + "/train.csv", "sha256": hex.EncodeToString(sum[:]), "path": "data/train.csv"}},
	})
	require.NoError(t, err)
	manifest := filepath.Join(t.TempDir(), "job.json")
	require.NoError(t, os.WriteFile(manifest, m, 0o600))
	c.Tx("alice", "auction", "post-job", "--gpus", "1", "--model", model, "--min-memory", "80GB",
		"--region", "eu", "--tier", "bronze", "--duration", "60s", "--max-price", "1usdc/gpu-h", "--bid-window", "0",
		"--image", image, "--manifest", manifest, "--workload", "training")
	require.Equal(t, "LEASE_STATUS_PENDING", c.Lease(1).Status)

	out := string(c.CLI("lease", "send-manifest", "1", manifest, "--from", "alice"))
	require.Contains(t, out, "manifest accepted for lease 1: fetching 1 input(s) first")
	c.WaitLease(1, "LEASE_STATUS_ACTIVE", 60*time.Second)

	// The job ends on its own within seconds; the agent closes the lease.
	harness.WaitFor(t, 90*time.Second, "the lease closed after its job ended", func() bool {
		s := c.Lease(1).Status
		return s != "LEASE_STATUS_ACTIVE" && s != "LEASE_STATUS_PENDING"
	})
	require.Equal(t, "epoch 1: 3 rows, total loss 16\n", string(c.CLI("lease", "logs", "1", "--from", "alice")))
	require.Regexp(t, `^lease 1: LEASE_STATUS_\w+, job exited with code 0, `, string(c.CLI("lease", "status", "1", "--from", "alice")))

	ckpt := []byte("checkpoint v1\nrows=3\nloss=16\n")
	ckptSum := sha256.Sum256(ckpt)
	var listing string
	harness.WaitFor(t, 30*time.Second, "the outputs listed", func() bool {
		out, err := c.TryCLI("lease", "outputs", "1", "--from", "alice")
		listing = string(out)
		return err == nil
	})
	require.Contains(t, listing, hex.EncodeToString(ckptSum[:])+"            29  checkpoint.bin\n")
	require.Regexp(t, regexp.MustCompile(`2 files \(0 not listed: links and special files\); deleted at \S+`), listing)
	dst := filepath.Join(t.TempDir(), "checkpoint.bin")
	require.Contains(t, string(c.CLI("lease", "download", "1", "checkpoint.bin", "-o", dst, "--from", "alice")), "29 bytes")
	got, err := os.ReadFile(dst)
	require.NoError(t, err)
	require.Equal(t, ckpt, got)

	// The container is gone; the image stays, pinned by the chain's digest.
	info, err := cli.ImageInspect(t.Context(), image)
	require.NoError(t, err)
	require.Contains(t, info.RepoDigests, image)

	// The operator's controls, seen on chain.
	require.Contains(t, string(a.CLI("pause")), "offers       1 paused on chain")
	require.Equal(t, "OFFER_STATUS_PAUSED", offerStatus())
	require.Contains(t, string(a.CLI("resume")), "the running agent reopens them within a block")
	harness.WaitFor(t, 30*time.Second, "the offer reopened by the running agent", func() bool { return offerStatus() == "OFFER_STATUS_OPEN" })
	// Leave waits for the lease's last epoch to be settled (CLOSING is live).
	require.Contains(t, string(a.CLI("drain")), "leases       1 live (1): the running agent proves them to their end")
	l := c.WaitLease(1, "LEASE_STATUS_CLOSED", 120*time.Second)
	require.Contains(t, l.Reason, "the job exited (code 0) before the lease ended")
	out = string(a.CLI("leave", "--yes"))
	require.Contains(t, out, "leases       none live: drained")
	require.Contains(t, out, "leave        the running agent leaves within a block")
	require.Contains(t, out, "leave        1 offers closed, 1 GPUs deregistered")
	require.Contains(t, out, "stake        unbonding 200000000ugpu")
	require.NotEqual(t, "OFFER_STATUS_OPEN", offerStatus())
	time.Sleep(3 * time.Second)
	require.NotEqual(t, "OFFER_STATUS_OPEN", offerStatus(), "the running agent does not reopen what leave closed")
	require.True(t, strings.Contains(a.Output(), "job started"), "the docker runner ran the job")
}
