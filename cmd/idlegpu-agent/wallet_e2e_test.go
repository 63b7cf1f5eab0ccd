package main_test

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/agent/config"
	"github.com/idlegpu/idlegpu/scripts/harness"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
)

// TestWalletRenterEndToEnd: a renter with only an Ethereum key rents a GPU
// from the real agent. It signs a job bid offline (EIP-712), a relayer
// submits it and is paid the fee the bid allows, the renter sends the
// manifest to the agent under a wallet signature (EIP-191), the lease is
// proven and completes, and every account's money is exact to the unit.
// The same signed bid submitted again is refused and moves nothing.
func TestWalletRenterEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a chain and the agent (minutes)")
	}
	c := harness.NewChain(t, bins, root, harness.GenesisEdits{
		"settlement": {"epoch_seconds": "20", "sample_interval_seconds": "1", "min_samples_ratio_bps": 7000, "proof_grace_seconds": "30"},
	})
	a := harness.NewAgent(t, c, bins, harness.AgentOptions{GPUs: 1, Seed: 11, Edit: func(cfg *config.Config) { cfg.Rewards.ClaimEvery = "5s" }})
	defer func() {
		if t.Failed() {
			t.Logf("agent output (tail):\n%s", harness.Tail(a.Output(), 60))
			t.Logf("node output (tail):\n%s", harness.Tail(c.Node.Output(), 20))
		}
	}()
	c.Tx("alice", "bank", "send", "alice", a.Addr, "500000000ugpu")
	a.CLI("register", "--region", "eu-de-fra1", "--endpoint", a.Endpoint, "--bond", "200000000ugpu", "--moniker", "wallet e2e")
	a.Start()
	var offers struct {
		Offers []struct {
			Status string `json:"status"`
		} `json:"offers"`
	}
	harness.WaitFor(t, 60*time.Second, "the agent's offer", func() bool {
		c.Query(&offers, "offer", "provider-offers", a.Addr)
		return len(offers.Offers) == 1 && offers.Offers[0].Status == "OFFER_STATUS_OPEN"
	})

	// The renter: an Ethereum key and nothing else; its account on chain is
	// the address's 20 bytes, funded with 10 USDC.
	dir := t.TempDir()
	key, err := crypto.GenerateKey()
	require.NoError(t, err)
	keyFile := filepath.Join(dir, "wallet.hex")
	require.NoError(t, os.WriteFile(keyFile, []byte(hex.EncodeToString(crypto.FromECDSA(key))), 0o600))
	ethAddr := crypto.PubkeyToAddress(key.PublicKey)
	renter := sdk.MustBech32ifyAddressBytes(chaincfg.Bech32Prefix, ethAddr.Bytes())
	const funded, fee = 10_000_000, 50_000
	c.Tx("alice", "bank", "send", "alice", renter, "10000000uusdc")
	relayer := c.Address("validator")
	relayerBefore := c.Balance(relayer, "uusdc")

	manifest := filepath.Join(dir, "manifest.json")
	require.NoError(t, os.WriteFile(manifest, []byte(`{"command":["sh","-c","echo wallet job on $CUDA_VISIBLE_DEVICES; while :; do sleep 1; done"]}`), 0o600))
	signed := stdout(t, c, "tx", "auction", "sign-job", "--eth-key", keyFile, "--chain-id", c.ChainID,
		"--gpus", "1", "--model", model, "--min-memory", "80GB", "--region", "eu", "--tier", "bronze",
		"--duration", "40s", "--max-price", "1usdc/gpu-h", "--bid-window", "0", "--workload", "training",
		"--image", image, "--manifest", manifest, "--max-relayer-fee", "50000uusdc")
	bidFile := filepath.Join(dir, "bid.json")
	require.NoError(t, os.WriteFile(bidFile, signed, 0o600))
	c.Tx("validator", "auction", "submit-signed-job", bidFile, "--relayer-fee", "0.05usdc")

	// The bid clears at once against the agent's offer; the lease's renter
	// is the wallet's account.
	l := c.Lease(1)
	require.Equal(t, "LEASE_STATUS_PENDING", l.Status)
	require.Contains(t, string(c.CLI("lease", "send-manifest", "1", manifest, "--eth-key", keyFile)), "manifest accepted for lease 1")
	c.WaitLease(1, "LEASE_STATUS_ACTIVE", 30*time.Second)
	require.Contains(t, string(c.CLI("lease", "logs", "1", "--eth-key", keyFile)), "wallet job on GPU-")
	l = c.WaitLease(1, "LEASE_STATUS_COMPLETED", 120*time.Second)

	// The money table: the lease paid the agent's preemptible floor for
	// 1 GPU × 40 s, the rest of the escrow came back, the relayer got its
	// fee, the provider was paid the lease less the take rate.
	paid := due(1, 40)
	require.EqualValues(t, 10_000, paid)
	require.Equal(t, paid, l.Paid.Int())
	require.EqualValues(t, funded-fee-paid, c.Balance(renter, "uusdc"), "renter: funded − relayer fee − paid")
	require.EqualValues(t, relayerBefore+fee, c.Balance(relayer, "uusdc"), "relayer: + its fee")
	var sp struct {
		Params struct {
			TakeRateBps uint32 `json:"take_rate_bps"`
		} `json:"params"`
	}
	c.Query(&sp, "settlement", "params")
	earned := paid - paid*int64(sp.Params.TakeRateBps)/10_000
	harness.WaitFor(t, 30*time.Second, "rewards claimed", func() bool { return c.Balance(a.Addr, "uusdc") == earned })

	// The same signed bid again: refused (its nonce is spent), nothing moves.
	code, log := tryTx(t, c, "validator", "auction", "submit-signed-job", bidFile, "--relayer-fee", "0.05usdc")
	require.NotZero(t, code)
	require.Contains(t, log, "nonce already used")
	require.EqualValues(t, funded-fee-paid, c.Balance(renter, "uusdc"))
	var jobs struct {
		Jobs []json.RawMessage `json:"jobs"`
	}
	c.Query(&jobs, "auction", "renter-jobs", ethAddr.Hex())
	require.Len(t, jobs.Jobs, 1, "the renter's jobs, queried by its 0x address")
}

// stdout runs idlegpud against the chain and returns its stdout only (what
// sign-* print is the file to submit).
func stdout(t *testing.T, c *harness.Chain, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(bins.Idlegpud, append(args, "--home", c.Home, "--node", c.RPC)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "idlegpud %s: %s", strings.Join(args, " "), stderr.String())
	return out
}

// tryTx broadcasts a tx that may fail and returns its code and log, from
// the check or, once in a block, from its delivery.
func tryTx(t *testing.T, c *harness.Chain, from string, args ...string) (uint32, string) {
	t.Helper()
	args = append(append([]string{"tx"}, args...), "--from", from, "--gas", "400000", "--fees", "1000ugpu", "--yes", "-o", "json", "--home", c.Home, "--node", c.RPC)
	out, err := exec.Command(bins.Idlegpud, args...).Output()
	var exit *exec.ExitError
	if !errors.As(err, &exit) { // a tx the chain refused or failed exits 1 after printing it
		require.NoError(t, err)
	}
	var res struct {
		Code   uint32 `json:"code"`
		TxHash string `json:"txhash"`
		RawLog string `json:"raw_log"`
	}
	require.NoError(t, json.Unmarshal(out, &res), string(out))
	if res.Code != 0 {
		return res.Code, res.RawLog
	}
	harness.WaitFor(t, 30*time.Second, "tx "+res.TxHash, func() bool {
		out, err := exec.Command(bins.Idlegpud, "q", "tx", res.TxHash, "-o", "json", "--home", c.Home, "--node", c.RPC).Output()
		return err == nil && json.Unmarshal(out, &res) == nil
	})
	return res.Code, res.RawLog
}
