package main_test

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/agent/config"
	"github.com/idlegpu/idlegpu/scripts/harness"
)

// TestLocalnetFaults runs scripts/localnet.sh's four validators with an
// agent proving a lease, and takes validators away: one killed (the chain
// goes on, proofs keep landing, it catches up to the same app hash), then
// two stopped (the chain halts without +2/3) and one restarted (it resumes,
// nothing lost or paid twice).
func TestLocalnetFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("starts four validators and an agent (minutes)")
	}
	ln := harness.NewLocalnet(t, bins, root, harness.GenesisEdits{
		"settlement": {"epoch_seconds": "15", "sample_interval_seconds": "1", "min_samples_ratio_bps": 7000, "proof_grace_seconds": "60"},
	})
	c := ln.Nodes[0] // alice's home; the agent follows validator 0
	a := harness.NewAgent(t, c, bins, harness.AgentOptions{GPUs: 2, Seed: 11, Edit: func(cfg *config.Config) {
		cfg.Rewards.ClaimEvery = "0" // keep the rewards on chain: they are checked below
	}})
	defer func() {
		if t.Failed() {
			t.Logf("agent output (tail):\n%s", harness.Tail(a.Output(), 40))
		}
	}()
	alice := c.Address("alice")
	c.Tx("alice", "bank", "send", "alice", a.Addr, "500000000ugpu")
	a.CLI("register", "--region", "eu-de-fra1", "--endpoint", a.Endpoint, "--bond", "200000000ugpu")
	a.Start()
	harness.WaitFor(t, 60*time.Second, "the agent's offer", func() bool {
		var o struct {
			Offers []struct{} `json:"offers"`
		}
		return c.TryQuery(&o, "offer", "provider-offers", a.Addr) && len(o.Offers) == 1
	})
	renterBefore := c.Balance(alice, "uusdc")
	manifest := postJob(t, c, 2, "90s") // 6 epochs of 15 s
	require.Contains(t, string(c.CLI("lease", "send-manifest", "1", manifest, "--from", "alice")), "manifest accepted")
	c.WaitLease(1, "LEASE_STATUS_ACTIVE", 30*time.Second)

	proven := func() int {
		var p struct {
			Progress struct {
				ProvenEpochs string `json:"proven_epochs"`
			} `json:"progress"`
		}
		if !c.TryQuery(&p, "settlement", "progress", "1") {
			return -1
		}
		n, _ := strconv.Atoi(p.Progress.ProvenEpochs)
		return n
	}

	t.Run("one validator of four killed: blocks and proofs go on; restarted, it catches up to the same app hash", func(t *testing.T) {
		ln.Kill(3)
		h := c.Height()
		c.WaitHeight(h+5, 30*time.Second)
		before := proven()
		harness.WaitFor(t, 45*time.Second, "a proof landing with validator 3 down", func() bool { return proven() > before })

		ln.StartNode(3)
		target := c.Height() + 2
		ln.Nodes[3].WaitHeight(target, 60*time.Second)
		for i := 1; i < 4; i++ {
			ln.Nodes[i].WaitHeight(target, 30*time.Second)
			require.Equal(t, ln.AppHash(0, target), ln.AppHash(i, target), "validator %d's app hash at %d", i, target)
		}
	})

	l := c.WaitLease(1, "LEASE_STATUS_COMPLETED", 120*time.Second)
	paid := due(2, 90)
	require.Equal(t, paid, l.Paid.Int(), "paid = floor(p × 2 GPUs × 90 s / 3600), every epoch proven")
	require.Equal(t, 6, proven())

	t.Run("two of four stopped: the chain halts; one back: it resumes, nothing lost or paid twice", func(t *testing.T) {
		ln.Stop(2)
		ln.Stop(3)
		time.Sleep(3 * time.Second) // a block in flight may still commit
		h := c.Height()
		time.Sleep(6 * time.Second)
		require.Equal(t, h, c.Height(), "no block without +2/3 of the power")

		ln.StartNode(2)
		c.WaitHeight(h+3, 60*time.Second)
		// The renter paid exactly the proven time; the provider's rewards are
		// the payments less the fee; the escrow holds nothing.
		require.Equal(t, renterBefore-paid, c.Balance(alice, "uusdc"))
		var rewards struct {
			Rewards []harness.Coin `json:"rewards"`
		}
		c.Query(&rewards, "settlement", "rewards", a.Addr)
		var sp struct {
			Params struct {
				TakeRateBps int64 `json:"take_rate_bps"`
			} `json:"params"`
		}
		c.Query(&sp, "settlement", "params")
		var fees int64
		for k := int64(0); k < 6; k++ {
			pay := due(2, (k+1)*15) - due(2, k*15)
			fees += pay * sp.Params.TakeRateBps / 10_000
		}
		require.Len(t, rewards.Rewards, 1)
		require.Equal(t, paid-fees, rewards.Rewards[0].Int())
		var acct struct {
			Account struct {
				Value struct {
					Address string `json:"address"`
				} `json:"value"`
			} `json:"account"`
		}
		c.Query(&acct, "auth", "module-account", "auction_escrow")
		require.NotEmpty(t, acct.Account.Value.Address, fmt.Sprintf("%+v", acct))
		require.Zero(t, c.Balance(acct.Account.Value.Address, "uusdc"), "the escrow holds nothing once the lease is settled")
	})
}
