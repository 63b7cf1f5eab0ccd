package bridge

import (
	"context"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	rpchttp "github.com/cometbft/cometbft/rpc/client/http"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/cosmos/cosmos-sdk/client"
	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/agent/config"
	"github.com/idlegpu/idlegpu/contracts/bindings"
	"github.com/idlegpu/idlegpu/scripts/harness"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	bridgetypes "github.com/idlegpu/idlegpu/x/bridge/types"
)

const (
	// model, image and the agent's preemptible floor as the agent's own
	// end-to-end tests use them.
	e2eModel       = "NVIDIA H100 80GB HBM3"
	e2eImage       = "registry.example/idlegpu/e2e@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	askPreemptible = 900_000
	// rootDelay is the vault's timelock: short, so the test sees a real
	// wait on real blocks without spending minutes.
	rootDelay = 3 * time.Second
)

// TestBridgeEndToEnd is the whole EVM story on real processes: geth --dev,
// a real idlegpud, the real agent, and idlegpu-bridge as the validator's
// registration, its orchestrator and a relayer. A renter with only an EVM
// key deposits USDC into the vault (three deposits; the orchestrator is
// killed between them and restarted), is credited on the chain exactly
// once each, signs a job bid that a relayer submits, the agent runs and
// proves the lease, the provider withdraws its earnings to its EVM
// address, the renter takes its unspent balance back out by a signed
// withdrawal that anyone relays for a fee, the validator signs the payout
// root, the relayer proposes it (and is killed and restarted before
// acceptance), accepts it after the timelock, and the provider claims with
// idlegpu-bridge and the renter with the calldata the web app's withdraw
// page gives its wallet. Every balance on both chains is checked to the unit, and
// printed as a table (make demo-evm shows it).
func TestBridgeEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts geth, a chain, the agent and the bridge (minutes)")
	}
	if os.Getenv("IDLEGPU_GETH") == "" {
		t.Skip("IDLEGPU_GETH is not set: build geth with `make geth` and set IDLEGPU_GETH=$PWD/build/tools/geth-v1.17.10")
	}
	start := time.Now()
	step := func(format string, args ...any) {
		t.Logf("[%5.1fs] %s", time.Since(start).Seconds(), fmt.Sprintf(format, args...))
	}
	bins, bridge := buildBinaries(t)
	step("built idlegpud, idlegpu-agent and idlegpu-bridge")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)

	// The EVM chain: the token first, so the vault's address (the
	// deployer's next nonce) is known before the idlegpu chain starts.
	g := startGeth(t, ctx)
	require.Equal(t, big.NewInt(1337), g.chain)
	deployer, relayer, renter, provider, valEth, guardian := g.actor("deployer"), g.actor("relayer"),
		g.actor("renter"), g.actor("provider"), g.actor("validator"), g.actor("guardian")
	g.fund(deployer.Addr, relayer.Addr, renter.Addr)
	token := g.deployToken(deployer)
	vaultAddr := g.nextAddress(deployer)
	vaultID := crypto.Keccak256Hash([]byte("idlegpu bridge e2e vault"))
	step("geth --dev up; TestUSDC at %s; the vault will be at %s", token.Hex(), vaultAddr.Hex())

	c := harness.NewChain(t, bins, repoRoot, harness.GenesisEdits{
		"bridge": {"evm_chain_id": "1337", "vault_address": vaultAddr.Hex(), "denom": "uusdc", "vault_id": vaultID.Hex(), "evm_confirmations": "2",
			"payout_epoch_blocks": "5", "min_withdrawal": "1"},
		"settlement": {"epoch_seconds": "20", "sample_interval_seconds": "1", "min_samples_ratio_bps": 7000, "proof_grace_seconds": "30"},
	})
	defer func() {
		if t.Failed() {
			t.Logf("node output (tail):\n%s", harness.Tail(c.Node.Output(), 30))
		}
	}()
	q := bridgeQueries(t, c.RPC)
	step("idlegpud up at %s", c.RPC)

	// The validator registers its EVM signer, with a separate orchestrator account.
	out, err := exec.Command(bins.Idlegpud, "keys", "add", "orchestrator", "--keyring-backend", "test", "--home", c.Home).CombinedOutput()
	require.NoError(t, err, "keys add: %s", out)
	orch := c.Address("orchestrator")
	c.Tx("alice", "bank", "send", "alice", orch, "100000000ugpu")
	cosmos := func(from string) []string {
		return []string{"--node", c.RPC, "--chain-id", c.ChainID, "--keyring-dir", c.Home, "--keyring-backend", "test", "--from", from}
	}
	reg := runBridge(t, bridge, append([]string{"register", "--eth-key", valEth.File, "--orchestrator", orch}, cosmos("validator")...)...)
	require.Contains(t, reg, valEth.Addr.Hex())
	var vs *bridgetypes.QueryValsetResponse
	harness.WaitFor(t, 30*time.Second, "the chain's first valset", func() bool {
		var err error
		vs, err = q.Valset(ctx, &bridgetypes.QueryValsetRequest{})
		return err == nil && len(vs.Valset.Members) == 1
	})
	require.Equal(t, valEth.Addr.Hex(), vs.Valset.Members[0].EvmAddress)
	step("validator registered EVM signer %s (orchestrator %s); valset %d made", valEth.Addr.Hex(), orch, vs.Valset.Nonce)

	dep := runBridge(t, bridge, "deploy-vault", "--node", c.RPC, "--eth-rpc", g.URL, "--eth-key", deployer.File,
		"--token", token.Hex(), "--guardian", guardian.Addr.Hex(), "--root-delay", rootDelay.String())
	require.Equal(t, vaultAddr.Hex(), strings.TrimSpace(dep))
	usdc := bindings.NewTestUSDC()
	tokenC := usdc.Instance(g.client, token)
	vault := bindings.NewSettlementVault()
	vaultC := vault.Instance(g.client, vaultAddr)
	step("vault deployed at %s with valset %d, root delay %s", vaultAddr.Hex(), vs.Valset.Nonce, rootDelay)

	// geth --dev finalizes every 32nd block: depth keeps the deposits prompt.
	orchArgs := append([]string{"orchestrate", "--eth-rpc", g.URL, "--eth-key", valEth.File, "--poll", "500ms",
		"--finality", "depth"}, cosmos("orchestrator")...)
	relayArgs := []string{"relay", "--node", c.RPC, "--eth-rpc", g.URL, "--eth-key", relayer.File, "--poll", "500ms"}
	orchestrator := bridgeProc(t, bridge, orchArgs...)
	relay := bridgeProc(t, bridge, relayArgs...)
	defer func() {
		if t.Failed() {
			t.Logf("orchestrator output (tail):\n%s", harness.Tail(orchestrator.Output(), 40))
			t.Logf("relayer output (tail):\n%s", harness.Tail(relay.Output(), 40))
		}
		orchestrator.Stop(t, syscall.SIGTERM)
		relay.Stop(t, syscall.SIGTERM)
	}()

	// The renter: an EVM key and USDC, nothing on the idlegpu chain.
	renterAcct := sdk.MustBech32ifyAddressBytes(chaincfg.Bech32Prefix, renter.Addr.Bytes())
	const minted = 25_000_000
	deposits := []int64{4_000_000, 3_000_000, 3_000_000}
	var deposited int64
	for _, d := range deposits {
		deposited += d
	}
	g.send(deployer, tokenC, usdc.PackMint(renter.Addr, big.NewInt(minted)))
	g.send(renter, tokenC, usdc.PackApprove(vaultAddr, big.NewInt(deposited)))
	deposit := func(n int) {
		g.send(renter, vaultC, vault.PackDeposit(big.NewInt(deposits[n]), renter.Addr))
		step("renter deposited %d uusdc (nonce %d)", deposits[n], n+1)
	}
	credited := func(nonce uint64) func() bool {
		return func() bool {
			res, err := q.Deposit(ctx, &bridgetypes.QueryDepositRequest{Nonce: nonce})
			return err == nil && res.Deposit != nil
		}
	}
	deposit(0)
	deposit(1)
	harness.WaitFor(t, 60*time.Second, "deposit 1 credited", credited(1))
	// Killed mid-stream: deposit 2 may or may not be attested yet, deposit
	// 3 comes while it is down; the restarted one finds where it was from
	// the chain.
	orchestrator.Stop(t, syscall.SIGKILL)
	step("orchestrator killed (SIGKILL) after deposit 1 was credited")
	deposit(2)
	orchestrator = bridgeProc(t, bridge, orchArgs...)
	step("orchestrator restarted")
	harness.WaitFor(t, 60*time.Second, "deposit 3 credited", credited(3))
	harness.WaitFor(t, 10*time.Second, "deposit 2 credited", credited(2))
	require.EqualValues(t, deposited, c.Balance(renterAcct, "uusdc"), "renter credited every deposit exactly once")
	st, err := q.Status(ctx, &bridgetypes.QueryStatusRequest{})
	require.NoError(t, err)
	require.EqualValues(t, 3, st.Progress.LastCreditedNonce)
	require.Equal(t, strconv.FormatInt(deposited, 10), st.Totals.Deposited.String())
	step("all 3 deposits credited once: renter %s holds %d uusdc", renterAcct, deposited)

	// The job, as the wallet renter's end-to-end test runs it.
	a := harness.NewAgent(t, c, bins, harness.AgentOptions{GPUs: 1, Seed: 11, Edit: func(cfg *config.Config) { cfg.Rewards.ClaimEvery = "5s" }})
	defer func() {
		if t.Failed() {
			t.Logf("agent output (tail):\n%s", harness.Tail(a.Output(), 40))
		}
	}()
	c.Tx("alice", "bank", "send", "alice", a.Addr, "500000000ugpu")
	a.CLI("register", "--region", "eu-de-fra1", "--endpoint", a.Endpoint, "--bond", "200000000ugpu", "--moniker", "bridge e2e")
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
	dir := t.TempDir()
	manifest := filepath.Join(dir, "manifest.json")
	require.NoError(t, os.WriteFile(manifest, []byte(`{"command":["sh","-c","echo bridged job on $CUDA_VISIBLE_DEVICES; while :; do sleep 1; done"]}`), 0o600))
	const fee = 50_000
	signed := idlegpudStdout(t, bins.Idlegpud, c, "tx", "auction", "sign-job", "--eth-key", renter.File, "--chain-id", c.ChainID,
		"--gpus", "1", "--model", e2eModel, "--min-memory", "80GB", "--region", "eu", "--tier", "bronze",
		"--duration", "40s", "--max-price", "1usdc/gpu-h", "--bid-window", "0", "--workload", "training",
		"--image", e2eImage, "--manifest", manifest, "--max-relayer-fee", fmt.Sprintf("%duusdc", fee))
	bidFile := filepath.Join(dir, "bid.json")
	require.NoError(t, os.WriteFile(bidFile, signed, 0o600))
	cosmosRelayer := c.Address("validator")
	relayerBefore := c.Balance(cosmosRelayer, "uusdc")
	c.Tx("validator", "auction", "submit-signed-job", bidFile, "--relayer-fee", fmt.Sprintf("%duusdc", fee))
	step("renter signed a job bid with its EVM key; a relayer submitted it")
	require.Contains(t, string(c.CLI("lease", "send-manifest", "1", manifest, "--eth-key", renter.File)), "manifest accepted for lease 1")
	c.WaitLease(1, "LEASE_STATUS_ACTIVE", 30*time.Second)
	l := c.WaitLease(1, "LEASE_STATUS_COMPLETED", 120*time.Second)
	paid := int64(askPreemptible * 1 * 40 / 3600)
	require.Equal(t, paid, l.Paid.Int())
	var sp struct {
		Params struct {
			TakeRateBps uint32 `json:"take_rate_bps"`
		} `json:"params"`
	}
	c.Query(&sp, "settlement", "params")
	earned := paid - paid*int64(sp.Params.TakeRateBps)/10_000
	harness.WaitFor(t, 30*time.Second, "rewards claimed", func() bool { return c.Balance(a.Addr, "uusdc") == earned })
	require.EqualValues(t, deposited-fee-paid, c.Balance(renterAcct, "uusdc"))
	require.EqualValues(t, relayerBefore+fee, c.Balance(cosmosRelayer, "uusdc"))
	step("lease 1 completed: paid %d, provider earned %d after the take rate", paid, earned)

	// The provider withdraws its earnings to its EVM address.
	c.Tx("agent", "bridge", "withdraw-to-evm", provider.Addr.Hex(), fmt.Sprintf("%duusdc", earned), "--keyring-dir", a.Home, "--keyring-backend", "test")
	require.EqualValues(t, 0, c.Balance(a.Addr, "uusdc"))
	step("provider withdrew %d uusdc to %s", earned, provider.Addr.Hex())
	renterOut, cosmosWithdrawRelayer, alicesBefore := withdrawWalletRenter(t, bins.Idlegpud, c, renter.File, renterAcct, deposited-fee-paid)
	step("renter signed a withdrawal of its unspent %d uusdc to its own EVM address; alice relayed it for %d", renterOut, withdrawFee)

	// The root: made by the chain, confirmed by the orchestrator, proposed
	// by the relayer. The relayer is killed the moment the root is ready on
	// the chain, so its proposal is in flight or not sent yet; restarted, it
	// resumes from what the vault says and accepts after the timelock.
	var ready *bridgetypes.QueryRootResponse
	harness.WaitFor(t, 90*time.Second, "a ready root on the chain", func() bool {
		r, err := q.Root(ctx, &bridgetypes.QueryRootRequest{ReadyOnly: true})
		ready = r
		// The root that holds both withdrawals (they may land in two payout epochs).
		return err == nil && r.Root.Epoch > 0 && r.Root.TotalCumulative.Int64() == earned+renterOut
	})
	relay.Stop(t, syscall.SIGKILL)
	proposed, err := bind.Call(vaultC, &bind.CallOpts{Context: ctx}, vault.PackLastProposedEpoch(), vault.UnpackLastProposedEpoch)
	require.NoError(t, err)
	step("root epoch %d ready (total %s); relayer killed (SIGKILL), the vault's last proposed epoch then: %d", ready.Root.Epoch, ready.Root.TotalCumulative, proposed)
	relay = bridgeProc(t, bridge, relayArgs...)
	var acc bindings.AcceptedRootOutput
	harness.WaitFor(t, 60*time.Second, "the root accepted", func() bool {
		a, err := bind.Call(vaultC, &bind.CallOpts{Context: ctx}, vault.PackAcceptedRoot(), vault.UnpackAcceptedRoot)
		acc = a
		return err == nil && a.Epoch == ready.Root.Epoch
	})
	require.EqualValues(t, earned+renterOut, acc.TotalCumulative.Int64())
	step("restarted relayer accepted root epoch %d after the %s timelock", acc.Epoch, rootDelay)

	claimArgs := []string{"claim", provider.Addr.Hex(), "--node", c.RPC, "--eth-rpc", g.URL, "--eth-key", relayer.File}
	claimed := runBridge(t, bridge, claimArgs...)
	require.Contains(t, claimed, fmt.Sprintf("paid %d to %s", earned, provider.Addr.Hex()))
	step("claimed: %s", strings.TrimSpace(claimed))
	_, err = runBridgeErr(bridge, claimArgs...)
	require.ErrorContains(t, err, "nothing to claim")
	// The wallet renter follows its withdrawal to the claim in the web
	// app: the page names the root and the amount, and its wallet sends
	// the page's claim from its button to the vault, which pays exactly what
	// was withdrawn.
	app := webApp(t, ctx, c)
	page, calldata := webClaim(t, app, renterAcct)
	require.Contains(t, page, fmt.Sprintf("The newest ready payout root (epoch %d) holds", ready.Root.Epoch))
	require.Contains(t, page, fmt.Sprintf(`<code id="claim-cumulative">%d</code>`, renterOut))
	require.NotEmpty(t, calldata, "the page gives the claim's calldata")
	claimInTheBrowser(t, g, app, renter, renterAcct, vaultC)
	paidRenter, err := bind.Call(vaultC, &bind.CallOpts{Context: ctx}, vault.PackClaimed(renter.Addr), vault.UnpackClaimed)
	require.NoError(t, err)
	require.EqualValues(t, renterOut, paidRenter.Int64())
	step("the wallet renter claimed %d with the web app's claim button", renterOut)
	_, err = runBridgeErr(bridge, "claim", renter.Addr.Hex(), "--node", c.RPC, "--eth-rpc", g.URL, "--eth-key", relayer.File)
	require.ErrorContains(t, err, "nothing to claim")

	// The money table, both chains, to the unit.
	rows := []struct {
		who       string
		got, want int64
	}{
		{"EVM renter USDC", g.usdcBalance(token, renter.Addr), minted - deposited + renterOut},
		{"EVM vault USDC", g.usdcBalance(token, vaultAddr), deposited - earned - renterOut},
		{"EVM provider USDC", g.usdcBalance(token, provider.Addr), earned},
		{"idlegpu renter uusdc", c.Balance(renterAcct, "uusdc"), 0},
		{"idlegpu relayer uusdc (fee)", c.Balance(cosmosRelayer, "uusdc") - relayerBefore, fee},
		{"idlegpu alice uusdc (wd fee)", c.Balance(cosmosWithdrawRelayer, "uusdc") - alicesBefore, withdrawFee},
		{"idlegpu provider uusdc", c.Balance(a.Addr, "uusdc"), 0},
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-30s %14s %14s\n", "balance", "actual", "expected")
	for _, r := range rows {
		mark := "ok"
		if r.got != r.want {
			mark = "MISMATCH"
		}
		fmt.Fprintf(&b, "%-30s %14d %14d  %s\n", r.who, r.got, r.want, mark)
	}
	t.Logf("balances:\n%s", b.String())
	for _, r := range rows {
		require.Equal(t, r.want, r.got, r.who)
	}
	step("every figure matches")
}

// withdrawFee is what the wallet renter lets a relayer take for its signed
// withdrawal.
const withdrawFee = 20_000

// withdrawWalletRenter takes all of the wallet renter's unspent balance
// (left, in uusdc) back to its own EVM address: it signs a withdrawal of
// left − withdrawFee with its EVM key (sign-withdraw) and alice relays it
// (submit-signed) for withdrawFee. It returns the amount withdrawn, alice's
// account and her uusdc before the fee.
func withdrawWalletRenter(t *testing.T, idlegpud string, c *harness.Chain, keyFile, renterAcct string, left int64) (int64, string, int64) {
	t.Helper()
	out := left - withdrawFee
	signed := idlegpudStdout(t, idlegpud, c, "tx", "auction", "sign-withdraw", fmt.Sprintf("%duusdc", out), "--eth-key", keyFile,
		"--chain-id", c.ChainID, "--max-relayer-fee", fmt.Sprintf("%duusdc", withdrawFee))
	file := filepath.Join(t.TempDir(), "withdraw.json")
	require.NoError(t, os.WriteFile(file, signed, 0o600))
	alice := c.Address("alice")
	before := c.Balance(alice, "uusdc")
	c.Tx("alice", "auction", "submit-signed", file, "--relayer-fee", fmt.Sprintf("%duusdc", withdrawFee))
	require.EqualValues(t, 0, c.Balance(renterAcct, "uusdc"), "the amount burned and the fee paid: nothing left")
	require.EqualValues(t, before+withdrawFee, c.Balance(alice, "uusdc"))
	return out, alice, before
}

// bridgeQueries is x/bridge's query client on the node at rpc.
func bridgeQueries(t *testing.T, node string) bridgetypes.QueryClient {
	enc, err := bridgeEncoding()
	require.NoError(t, err)
	rc, err := rpchttp.New(node, "/websocket")
	require.NoError(t, err)
	return bridgetypes.NewQueryClient(client.Context{}.WithCodec(enc.Codec).
		WithInterfaceRegistry(enc.InterfaceRegistry).WithNodeURI(node).WithClient(rc))
}

// idlegpudStdout runs idlegpud against the chain and returns its stdout
// only (what sign-job prints is the file to submit).
func idlegpudStdout(t *testing.T, bin string, c *harness.Chain, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(bin, append(args, "--home", c.Home, "--node", c.RPC)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "idlegpud %s: %s", strings.Join(args, " "), stderr.String())
	return out
}
