package main_test

import (
	"cmp"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/agent/config"
	"github.com/idlegpu/idlegpu/scripts/harness"
)

const (
	model = "NVIDIA H100 80GB HBM3"
	image = "registry.example/idlegpu/e2e@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	// askPreemptible is the agent's default preemptible floor: what a
	// single candidate is paid for BRONZE work.
	askPreemptible = 900_000
)

type reputation struct {
	Reliability any    `json:"reliability_bps"`
	Proven      string `json:"proven_epochs"`
	Missed      string `json:"missed_epochs"`
	Completed   string `json:"leases_completed"`
	Failed      string `json:"leases_failed"`
	Preemptions string `json:"preemptions"`
	Frauds      string `json:"frauds"`
}

func reputationOf(c *harness.Chain, provider string) reputation {
	var p struct {
		Reputation reputation `json:"reputation"`
	}
	c.Query(&p, "provider", "provider", provider)
	return p.Reputation
}

// postJob posts a BRONZE job for gpus GPUs that clears at once against the
// agent's offer and returns the manifest path for send-manifest.
func postJob(t *testing.T, c *harness.Chain, gpus int, duration string) string {
	t.Helper()
	manifest := filepath.Join(t.TempDir(), "manifest.json")
	m := map[string]any{"command": []string{"sh", "-c", `echo "started on $CUDA_VISIBLE_DEVICES lease $IDLEGPU_LEASE_ID"; while :; do sleep 1; done`, "idlegpu-e2e-job"},
		"env": map[string]string{"MODEL": "tiny"}}
	b, err := json.Marshal(m)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(manifest, b, 0o600))
	c.Tx("alice", "auction", "post-job", "--gpus", strconv.Itoa(gpus), "--model", model, "--min-memory", "80GB",
		"--region", "eu", "--tier", "bronze", "--duration", duration, "--max-price", "1usdc/gpu-h", "--bid-window", "0",
		"--image", image, "--manifest", manifest, "--workload", "training")
	return manifest
}

func atoi(t *testing.T, s string) int64 {
	t.Helper()
	if s == "" {
		return 0
	}
	n, err := strconv.ParseInt(s, 10, 64)
	require.NoError(t, err)
	return n
}

// due is x/auction's cumulative payment: floor(p × gpus × seconds / 3600).
func due(gpus, seconds int64) int64 { return askPreemptible * gpus * seconds / 3600 }

// TestAgentEndToEnd runs the real agent binary against a real idlegpud:
// it registers, offers, runs jobs, proves every epoch and gets paid to the
// unit, through a chain restart, a SIGKILL of the agent and a thermal
// preemption.
func TestAgentEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a chain and the agent (minutes)")
	}
	c := harness.NewChain(t, bins, root, harness.GenesisEdits{
		// 20 s epochs, 1 s samples, 70 % of the samples needed (an agent
		// restart costs a few), 30 s to submit a proof; 10 s without a
		// block is a chain halt.
		"settlement": {"epoch_seconds": "20", "sample_interval_seconds": "1", "min_samples_ratio_bps": 7000, "proof_grace_seconds": "30",
			"halt_gap_seconds": "10"},
	})
	a := harness.NewAgent(t, c, bins, harness.AgentOptions{GPUs: 2, Seed: 7, Edit: func(cfg *config.Config) {
		cfg.Policy.PreemptAfter = 3
		cfg.Rewards.ClaimEvery = "5s"
	}})
	defer func() {
		if t.Failed() {
			t.Logf("agent output (tail):\n%s", harness.Tail(a.Output(), 60))
			t.Logf("node output (tail):\n%s", harness.Tail(c.Node.Output(), 20))
		}
	}()
	alice := c.Address("alice")

	var sp struct {
		Params struct {
			TakeRateBps uint32 `json:"take_rate_bps"`
		} `json:"params"`
	}
	c.Query(&sp, "settlement", "params")
	// The take rate applies to a lease's cumulative payments.
	feeUpTo := func(paid int64) int64 { return paid * int64(sp.Params.TakeRateBps) / 10_000 }

	// The operator runs its own agent: fund its key, register and bond.
	c.Tx("alice", "bank", "send", "alice", a.Addr, "500000000ugpu")
	out := string(a.CLI("register", "--region", "eu-de-fra1", "--endpoint", a.Endpoint, "--bond", "200000000ugpu", "--moniker", "e2e rack"))
	require.Contains(t, out, "GPU-", "register names the GPUs it registered:\n%s", out)
	require.Contains(t, string(a.CLI("register", "--region", "eu-de-fra1", "--endpoint", a.Endpoint, "--bond", "200000000ugpu")), "nothing to do")

	a.Start()
	// The agent publishes one offer for its two GPUs at the policy's prices.
	var offers struct {
		Offers []struct {
			ID     string   `json:"id"`
			GPUs   []string `json:"gpu_uuids"`
			Status string   `json:"status"`
		} `json:"offers"`
	}
	harness.WaitFor(t, 60*time.Second, "the agent's offer", func() bool {
		c.Query(&offers, "offer", "provider-offers", a.Addr)
		return len(offers.Offers) == 1 && offers.Offers[0].Status == "OFFER_STATUS_OPEN"
	})
	require.Len(t, offers.Offers[0].GPUs, 2)

	t.Run("a 2-GPU lease runs through a chain restart, every epoch proven and paid to the unit, then claimed", func(t *testing.T) {
		manifest := postJob(t, c, 2, "40s")
		require.Equal(t, "LEASE_STATUS_PENDING", c.Lease(1).Status)
		require.Contains(t, string(c.CLI("lease", "send-manifest", "1", manifest, "--from", "alice")), "manifest accepted for lease 1")
		l := c.WaitLease(1, "LEASE_STATUS_ACTIVE", 30*time.Second)
		logs := string(c.CLI("lease", "logs", "1", "--from", "alice"))
		require.Contains(t, logs, "started on "+strings.Join(l.GPUs, ",")+" lease 1", "the job sees exactly its GPUs")

		// The node goes down for a few seconds mid-lease and comes back.
		time.Sleep(8 * time.Second)
		c.Node.Stop(t, syscall.SIGTERM)
		time.Sleep(4 * time.Second)
		c.Start()
		c.WaitHeight(c.Height()+1, 60*time.Second)

		l = c.WaitLease(1, "LEASE_STATUS_COMPLETED", 120*time.Second)
		var prog struct {
			Progress struct {
				ProvenEpochs string `json:"proven_epochs"`
				NextEpoch    string `json:"next_epoch"`
			} `json:"progress"`
		}
		c.Query(&prog, "settlement", "progress", "1")
		require.Equal(t, "2", prog.Progress.ProvenEpochs)
		require.Equal(t, due(2, 40), l.Paid.Int(), "paid = floor(p × 2 GPUs × 40 s / 3600)")
		require.EqualValues(t, 20_000, l.Paid.Int())

		// Every epoch's payment minus the take is the provider's; the agent
		// claims it on its schedule into the operator's account.
		earned := due(2, 40) - feeUpTo(due(2, 40))
		harness.WaitFor(t, 30*time.Second, "rewards claimed", func() bool { return c.Balance(a.Addr, "uusdc") == earned })
		rep := reputationOf(c, a.Addr)
		require.Equal(t, "2", rep.Proven)
		require.Equal(t, "1", rep.Completed)
		require.Empty(t, strings.TrimLeft(rep.Missed, "0"))
		// The job was stopped at the lease's end.
		require.Regexp(t, `^lease 1: LEASE_STATUS_COMPLETED, job (exited with code \d+|ended without an exit code \(killed\)), epochs proven 2`,
			string(c.CLI("lease", "status", "1", "--from", "alice")))
	})

	t.Run("the agent is SIGKILLed mid-lease and restarted: it adopts the job, no epoch missed or proven twice", func(t *testing.T) {
		manifest := postJob(t, c, 2, "60s")
		require.Contains(t, string(c.CLI("lease", "send-manifest", "2", manifest, "--from", "alice")), "manifest accepted for lease 2")
		l := c.WaitLease(2, "LEASE_STATUS_ACTIVE", 30*time.Second)
		// Into the second epoch, then kill -9 and start again at once.
		time.Sleep(time.Until(l.Start.Add(25 * time.Second)))
		a.Restart(syscall.SIGKILL)

		// status reads the chain, the local records and the agent's health.
		var st struct {
			Registered bool `json:"registered"`
			Leases     []struct {
				ID       uint64 `json:"id"`
				Status   string `json:"status"`
				LocalJob bool   `json:"local_job"`
			} `json:"leases"`
			Agent *struct {
				OK bool `json:"ok"`
			} `json:"agent"`
		}
		harness.WaitFor(t, 30*time.Second, "the restarted agent healthy", func() bool {
			require.NoError(t, json.Unmarshal(a.CLI("status", "--json"), &st))
			return st.Agent != nil && st.Agent.OK
		})
		require.True(t, st.Registered)
		require.Len(t, st.Leases, 1)
		require.Equal(t, uint64(2), st.Leases[0].ID)
		require.Equal(t, "ACTIVE", st.Leases[0].Status)
		require.True(t, st.Leases[0].LocalJob)
		require.Contains(t, string(a.CLI("status")), "healthy")

		l = c.WaitLease(2, "LEASE_STATUS_COMPLETED", 150*time.Second)
		require.Equal(t, due(2, 60), l.Paid.Int())
		var proofs struct {
			Proofs []struct {
				Proof struct {
					Epoch string `json:"epoch"`
				} `json:"proof"`
			} `json:"proofs"`
		}
		c.Query(&proofs, "settlement", "proofs", "2")
		var epochs []string
		for _, p := range proofs.Proofs {
			epochs = append(epochs, cmp.Or(p.Proof.Epoch, "0"))
		}
		require.ElementsMatch(t, []string{"0", "1", "2"}, epochs, "epochs 0, 1 and 2 proven once each")
		rep := reputationOf(c, a.Addr)
		require.Equal(t, "5", rep.Proven)
		require.Empty(t, strings.TrimLeft(rep.Missed, "0"))
		require.Contains(t, a.Output(), "job adopted")
		logs := string(c.CLI("lease", "logs", "2", "--from", "alice"))
		require.Equal(t, 1, strings.Count(logs, "started on"), "the job was adopted, not run again:\n%s", logs)
		require.NotContains(t, a.Output(), `part=proofs`, "no proof was refused or failed")
	})

	t.Run("a GPU over its thermal limit: the BRONZE lease is preempted, nothing slashed, the offer paused then reopened", func(t *testing.T) {
		var before struct {
			Provider struct {
				Stake struct {
					Amount string `json:"amount"`
				} `json:"stake"`
			} `json:"provider"`
		}
		c.Query(&before, "provider", "provider", a.Addr)
		renterBefore := c.Balance(alice, "uusdc")
		manifest := postJob(t, c, 1, "60s")
		require.Contains(t, string(c.CLI("lease", "send-manifest", "3", manifest, "--from", "alice")), "manifest accepted for lease 3")
		l := c.WaitLease(3, "LEASE_STATUS_ACTIVE", 30*time.Second)
		hot, err := json.Marshal(map[string]any{l.GPUs[0]: map[string]any{"temp_c": 95}})
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(a.Control, hot, 0o600))

		// CLOSING until the time it ran is settled, then PREEMPTED.
		l = c.WaitLease(3, "LEASE_STATUS_PREEMPTED", 90*time.Second)
		require.Contains(t, l.Reason, "thermal")
		var after = before
		c.Query(&after, "provider", "provider", a.Addr)
		require.Equal(t, before.Provider.Stake.Amount, after.Provider.Stake.Amount, "a preemption slashes nothing")
		rep := reputationOf(c, a.Addr)
		require.Equal(t, "1", rep.Preemptions)
		require.Empty(t, strings.TrimLeft(rep.Frauds, "0"))
		// The renter paid only for proven time (none: preempted in epoch 0).
		require.Equal(t, renterBefore-l.Paid.Int(), c.Balance(alice, "uusdc"))

		harness.WaitFor(t, 60*time.Second, "offer paused", func() bool {
			c.Query(&offers, "offer", "provider-offers", a.Addr)
			return offers.Offers[0].Status == "OFFER_STATUS_PAUSED"
		})
		require.NoError(t, os.Remove(a.Control))
		harness.WaitFor(t, 60*time.Second, "offer reopened", func() bool {
			c.Query(&offers, "offer", "provider-offers", a.Addr)
			return offers.Offers[0].Status == "OFFER_STATUS_OPEN"
		})
	})

	t.Run("the chain halts longer than an epoch plus grace mid-lease: nothing failed, slashed or jailed, the renter pays proven time only", func(t *testing.T) {
		var before struct {
			Provider struct {
				Status string `json:"status"`
				Stake  struct {
					Amount string `json:"amount"`
				} `json:"stake"`
			} `json:"provider"`
		}
		c.Query(&before, "provider", "provider", a.Addr)
		repBefore := reputationOf(c, a.Addr)
		renterBefore := c.Balance(alice, "uusdc")
		manifest := postJob(t, c, 2, "60s")
		require.Contains(t, string(c.CLI("lease", "send-manifest", "4", manifest, "--from", "alice")), "manifest accepted for lease 4")
		l := c.WaitLease(4, "LEASE_STATUS_ACTIVE", 30*time.Second)

		// Into epoch 1, the chain stops for 70 s: past epoch 1's due time
		// (its end + 30 s of grace) and over all of epoch 2's window.
		time.Sleep(time.Until(l.Start.Add(25 * time.Second)))
		c.Node.Stop(t, syscall.SIGTERM)
		time.Sleep(70 * time.Second)
		c.Start()
		c.WaitHeight(c.Height()+2, 60*time.Second)

		l = c.WaitLease(4, "LEASE_STATUS_COMPLETED", 180*time.Second)
		var prog struct {
			Progress struct {
				ProvenEpochs  string `json:"proven_epochs"`
				MissedEpochs  string `json:"missed_epochs"`
				ExcusedEpochs string `json:"excused_epochs"`
			} `json:"progress"`
		}
		c.Query(&prog, "settlement", "progress", "4")
		require.Equal(t, "2", prog.Progress.ProvenEpochs, "epochs 0 and 1 proven, epoch 1 after the restart")
		require.Equal(t, "1", prog.Progress.ExcusedEpochs, "epoch 2 held no block")
		require.Empty(t, strings.TrimLeft(prog.Progress.MissedEpochs, "0"))
		require.Equal(t, due(2, 40), l.Paid.Int(), "paid = floor(p × 2 GPUs × 40 proven s / 3600)")
		require.Equal(t, renterBefore-l.Paid.Int(), c.Balance(alice, "uusdc"), "the renter pays proven time only")

		var after = before
		c.Query(&after, "provider", "provider", a.Addr)
		require.Equal(t, before.Provider.Stake.Amount, after.Provider.Stake.Amount, "not slashed")
		require.Equal(t, "PROVIDER_STATUS_ACTIVE", after.Provider.Status, "not jailed")
		rep := reputationOf(c, a.Addr)
		require.Equal(t, atoi(t, repBefore.Missed), atoi(t, rep.Missed), "no epoch missed")
		require.Equal(t, atoi(t, repBefore.Completed)+1, atoi(t, rep.Completed))
	})
}
