package bridge

import (
	"context"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/contracts/bindings"
	"github.com/idlegpu/idlegpu/scripts/harness"
	bridgetypes "github.com/idlegpu/idlegpu/x/bridge/types"
)

// TestBridgeThreeValidators is the bridge run by a validator set rather
// than one validator: three idlegpud validators (scripts/localnet.sh), each
// with its own EVM signer registered by `idlegpu-bridge register` and its
// own `idlegpu-bridge orchestrate` talking to its own node, one `relay`,
// geth --dev and the vault deployed by `deploy-vault`. Stakes are 3:2:2
// (43% / 29% / 29%): validator 0 with either other holds more than two
// thirds (71%), validators 1 and 2 together do not (57%).
//
//  1. Deposits 1-3 are credited with all three orchestrators up.
//  2. Validator 2's orchestrator is killed (SIGKILL) right after it attested
//     the first deposits of a batch (4-7); validators 0 and 1 credit the
//     rest of the batch without it.
//  3. Validator 1 takes its orchestrator down to rotate its EVM key
//     (`register` again); the chain makes a new valset. Validator 2's
//     orchestrator restarts and resumes at deposit 8, which only it and
//     validator 0 are up to attest: credited, with no attestation repeated
//     and no refused transaction. The relayer rotates the vault to the new
//     valset on the old set's signatures (validators 0 and 2).
//  4. Two accounts withdraw three times to two EVM addresses; the payout
//     roots (one or two epochs, as the withdrawals fall) are signed by the
//     new set (the rotated key among the signers), relayed, accepted after
//     the timelock, and `claim` pays every address its cumulative total.
//
// Every deposit is credited exactly once and every withdrawal paid: the
// figures are checked to the unit on both chains.
func TestBridgeThreeValidators(t *testing.T) {
	if testing.Short() {
		t.Skip("starts geth, three validators and the bridge's processes (minutes)")
	}
	if os.Getenv("IDLEGPU_GETH") == "" {
		t.Skip("IDLEGPU_GETH is not set: build geth with `make geth` and set IDLEGPU_GETH=$PWD/build/tools/geth-v1.17.10")
	}
	start := time.Now()
	step := func(format string, args ...any) {
		t.Logf("[%5.1fs] %s", time.Since(start).Seconds(), fmt.Sprintf(format, args...))
	}
	bins, bridge := buildBinaries(t)
	step("built idlegpud and idlegpu-bridge")
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	t.Cleanup(cancel)

	g := startGeth(t, ctx)
	deployer, relayer, guardian := g.actor("deployer"), g.actor("relayer"), g.actor("guardian")
	depositors := []ethActor{g.actor("depositor-1"), g.actor("depositor-2")}
	payees := []ethActor{g.actor("payee-1"), g.actor("payee-2")}
	g.fund(deployer.Addr, relayer.Addr, depositors[0].Addr, depositors[1].Addr)
	token := g.deployToken(deployer)
	vaultAddr := g.nextAddress(deployer)
	step("geth --dev up; TestUSDC at %s; the vault will be at %s", token.Hex(), vaultAddr.Hex())

	ln := harness.NewLocalnetOf(t, bins, repoRoot, 3, harness.GenesisEdits{
		"bridge": {"evm_chain_id": "1337", "vault_address": vaultAddr.Hex(), "denom": "uusdc", "vault_id": crypto.Keccak256Hash([]byte("idlegpu bridge e2e three validators")).Hex(),
			"evm_confirmations": "2", "payout_epoch_blocks": "5", "min_withdrawal": "1"},
	})
	c := ln.Nodes[0] // alice's home
	q := bridgeQueries(t, c.RPC)
	vals := make([]*e2eValidator, 3)
	for i := range vals {
		vals[i] = newE2EValidator(t, bins, bridge, ln.Nodes[i], i, g.actor(fmt.Sprintf("signer-%d", i)))
	}
	defer func() {
		if t.Failed() {
			for _, v := range vals {
				t.Logf("validator %d's orchestrator output (tail):\n%s", v.Index, harness.Tail(v.Output(), 25))
			}
		}
	}()
	// 3:2:2: alice delegates half a validator's stake to validator 0.
	c.Tx("alice", "staking", "delegate", vals[0].Valoper, "50000000000ugpu")
	step("3 validators up (%s, %s, %s); alice delegated to validator 0: stakes 150k:100k:100k GPU",
		ln.Nodes[0].RPC, ln.Nodes[1].RPC, ln.Nodes[2].RPC)

	// Two accounts on the chain receive the deposits and later withdraw.
	accounts := []string{"carol", "dave"}
	addrs := make([]string, len(accounts))
	for i, name := range accounts {
		out, err := exec.Command(bins.Idlegpud, "keys", "add", name, "--keyring-backend", "test", "--home", c.Home).CombinedOutput()
		require.NoError(t, err, "keys add %s: %s", name, out)
		addrs[i] = c.Address(name)
	}
	c.Tx("alice", "bank", "multi-send", "alice", addrs[0], addrs[1], "10000000ugpu")

	for _, v := range vals {
		v.Register(v.Signer)
	}
	var vs *bridgetypes.QueryValsetResponse
	harness.WaitFor(t, 30*time.Second, "a valset of all three signers", func() bool {
		var err error
		vs, err = q.Valset(ctx, &bridgetypes.QueryValsetRequest{})
		return err == nil && len(vs.Valset.Members) == 3
	})
	want := map[string]uint64{vals[0].Valoper: (1 << 32) * 3 / 7, vals[1].Valoper: (1 << 32) * 2 / 7, vals[2].Valoper: (1 << 32) * 2 / 7}
	for _, m := range vs.Valset.Members {
		require.Equal(t, want[m.Validator], m.Power, "power of %s", m.Validator)
	}
	firstValset := vs.Valset.Nonce
	step("each validator registered its EVM signer; valset %d: powers %d/%d/%d of 2^32", firstValset,
		want[vals[0].Valoper], want[vals[1].Valoper], want[vals[2].Valoper])

	rootDelay := 3 * time.Second
	dep := runBridge(t, bridge, "deploy-vault", "--node", c.RPC, "--eth-rpc", g.URL, "--eth-key", deployer.File,
		"--token", token.Hex(), "--guardian", guardian.Addr.Hex(), "--root-delay", rootDelay.String())
	require.Equal(t, vaultAddr.Hex(), strings.TrimSpace(dep))
	usdc, vault := bindings.NewTestUSDC(), bindings.NewSettlementVault()
	tokenC, vaultC := usdc.Instance(g.client, token), vault.Instance(g.client, vaultAddr)
	require.Equal(t, firstValset, vaultView(t, ctx, vaultC, vault.PackValsetNonce(), vault.UnpackValsetNonce))
	step("vault deployed at %s with valset %d, root delay %s", vaultAddr.Hex(), firstValset, rootDelay)

	for _, v := range vals {
		v.Start(g.URL)
	}
	relay := bridgeProc(t, bridge, "relay", "--node", c.RPC, "--eth-rpc", g.URL, "--eth-key", relayer.File, "--poll", "500ms")
	defer func() {
		if t.Failed() {
			t.Logf("relayer output (tail):\n%s", harness.Tail(relay.Output(), 30))
		}
		relay.Stop(t, syscall.SIGTERM)
	}()
	step("3 orchestrators (one per validator, each on its own node) and a relayer running")

	// The deposits: nonce n is deposits[n-1]; depositor (n-1)%2 pays for
	// account (n-1)%2.
	deposits := []int64{4_000_000, 2_500_000, 1_500_000, 1_000_000, 2_000_000, 750_000, 1_250_000, 500_000}
	const minted = 10_000_000
	var deposited int64
	credits := make([]int64, len(accounts))
	for n, d := range deposits {
		deposited += d
		credits[n%2] += d
	}
	for _, d := range depositors {
		g.send(deployer, tokenC, usdc.PackMint(d.Addr, big.NewInt(minted)))
		g.send(d, tokenC, usdc.PackApprove(vaultAddr, big.NewInt(minted)))
	}
	deposit := func(nonce int) {
		i := (nonce - 1) % 2
		g.send(depositors[i], vaultC, vault.PackDeposit(big.NewInt(deposits[nonce-1]), evmAddressOf(t, addrs[i])))
	}
	credited := func(nonce uint64) func() bool {
		return func() bool {
			res, err := q.Deposit(ctx, &bridgetypes.QueryDepositRequest{Nonce: nonce})
			return err == nil && res.Deposit != nil
		}
	}

	// 1. Everyone up.
	for n := 1; n <= 3; n++ {
		deposit(n)
	}
	harness.WaitFor(t, 60*time.Second, "deposits 1-3 credited", credited(3))
	step("deposits 1-3 (%d, %d, %d uusdc) credited", deposits[0], deposits[1], deposits[2])

	// 2. Validator 2's orchestrator dies in the middle of the batch 4-7.
	deposit(4)
	deposit(5)
	// Killed once its attestation of 4 or 5 is on the chain (or, should
	// validators 0 and 1 be quicker every time, once both are credited).
	harness.WaitFor(t, 30*time.Second, "validator 2 attesting part of the batch", func() bool {
		atts, _ := attestations(ctx, t, c.RPC)
		return attestedBy(atts, 4, vals[2]) || attestedBy(atts, 5, vals[2]) || credited(5)()
	})
	vals[2].Stop(syscall.SIGKILL)
	step("validator 2's orchestrator killed (SIGKILL) right after it attested part of deposits 4-5")
	deposit(6)
	deposit(7)
	atts := creditedAttestations(ctx, t, c.RPC, q, 7)
	v2Reached := uint64(3)
	for n := uint64(4); n <= 7; n++ {
		if attestedBy(atts, n, vals[2]) {
			v2Reached = n
		}
	}
	require.Less(t, v2Reached, uint64(6), "validator 2 was killed before deposit 6 existed")
	for n := v2Reached + 1; n <= 7; n++ {
		require.ElementsMatch(t, []string{vals[0].Valoper, vals[1].Valoper}, atts[n], "deposit %d's attesters", n)
	}
	step("deposits 4-7 credited; validator 2 had attested through %d, validators 0 and 1 (71%% of the power) credited %d-7 alone",
		v2Reached, v2Reached+1)

	// 3. Validator 1 rotates its EVM key while its orchestrator is down;
	// validator 2 comes back and, with validator 0, is needed for deposit 8.
	vals[1].Stop(syscall.SIGTERM)
	rotated, oldSigner1 := g.actor("signer-1-rotated"), vals[1].Signer.Addr
	vals[1].Register(rotated)
	harness.WaitFor(t, 30*time.Second, "a valset with validator 1's new key", func() bool {
		var err error
		vs, err = q.Valset(ctx, &bridgetypes.QueryValsetRequest{})
		return err == nil && vs.Valset.Nonce > firstValset && slices.ContainsFunc(vs.Valset.Members, func(m bridgetypes.ValsetMember) bool {
			return m.EvmAddress == rotated.Addr.Hex()
		})
	})
	newValset := vs.Valset
	step("validator 1 stopped its orchestrator and registered a new EVM key %s: valset %d", rotated.Addr.Hex(), newValset.Nonce)
	vals[2].Start(g.URL)
	step("validator 2's orchestrator restarted")
	deposit(8)
	atts = creditedAttestations(ctx, t, c.RPC, q, 8)
	require.ElementsMatch(t, []string{vals[0].Valoper, vals[2].Valoper}, atts[8], "deposit 8's attesters")
	const attestedTotal = "idlegpu_bridge_orchestrator_deposits_attested_total"
	harness.WaitFor(t, 10*time.Second, "the restarted orchestrator counting its attestation", func() bool { return vals[2].Metric(attestedTotal) > 0 })
	require.EqualValues(t, 1, vals[2].Metric(attestedTotal), "the restarted orchestrator attested deposit 8 and nothing before it")
	require.Zero(t, vals[2].Metric(`idlegpu_bridge_orchestrator_errors_total{step="deposits"}`),
		"the restarted orchestrator had no attestation refused")
	step("deposit 8 credited by validators 0 and 2: the restarted orchestrator resumed at 8 (one attestation, none refused)")

	harness.WaitFor(t, 60*time.Second, "the vault rotated to the new valset", func() bool {
		return vaultView(t, ctx, vaultC, vault.PackValsetNonce(), vault.UnpackValsetNonce) == newValset.Nonce
	})
	checkpoint := vaultView(t, ctx, vaultC, vault.PackValsetCheckpoint(), vault.UnpackValsetCheckpoint)
	require.Equal(t, newValset.Checkpoint, common.Hash(checkpoint).Hex())
	// Of the vault's set then (valset firstValset), only validators 0 and 2
	// could sign: validator 1's old key was no longer registered.
	rotation, err := q.Valset(ctx, &bridgetypes.QueryValsetRequest{Nonce: newValset.Nonce})
	require.NoError(t, err)
	var oldSetSigned []string
	for _, cf := range rotation.Confirms {
		if cf.EvmAddress == vals[0].Signer.Addr.Hex() || cf.EvmAddress == vals[2].Signer.Addr.Hex() || cf.EvmAddress == oldSigner1.Hex() {
			oldSetSigned = append(oldSetSigned, cf.Validator)
		}
	}
	require.ElementsMatch(t, []string{vals[0].Valoper, vals[2].Valoper}, oldSetSigned)
	vals[1].Start(g.URL)
	step("relayer rotated the vault to valset %d (checkpoint %s) on validators 0 and 2's signatures; validator 1's orchestrator back with its new key",
		newValset.Nonce, newValset.Checkpoint)

	// Every deposit credited once, to the unit.
	for i, a := range addrs {
		require.EqualValues(t, credits[i], c.Balance(a, "uusdc"), "%s credited", accounts[i])
	}
	for n := uint64(1); n <= uint64(len(deposits)); n++ {
		got := atts[n]
		require.Len(t, slices.Compact(slices.Sorted(slices.Values(got))), len(got), "deposit %d attested twice by one validator: %v", n, got)
		require.Contains(t, got, vals[0].Valoper, "deposit %d: no two thirds without validator 0", n)
		require.GreaterOrEqual(t, len(got), 2, "deposit %d", n)
	}
	var table strings.Builder
	for n := 1; n <= len(deposits); n++ {
		var by []string
		for _, v := range vals {
			if attestedBy(atts, uint64(n), v) {
				by = append(by, strconv.Itoa(v.Index))
			}
		}
		fmt.Fprintf(&table, "deposit %d: %9d uusdc to %-5s attested by validators %s\n", n, deposits[n-1], accounts[(n-1)%2], strings.Join(by, ","))
	}
	t.Logf("deposits:\n%s", table.String())

	// 4. Withdrawals to two EVM addresses, paid under a root of the new set.
	withdrawals := []struct {
		from  int
		to    ethActor
		units int64
	}{{0, payees[0], 3_000_000}, {1, payees[1], 2_000_000}, {0, payees[1], 1_500_000}}
	var withdrawn int64
	owed := map[common.Address]int64{}
	spent := make([]int64, len(accounts))
	for _, w := range withdrawals {
		c.Tx(accounts[w.from], "bridge", "withdraw-to-evm", w.to.Addr.Hex(), fmt.Sprintf("%duusdc", w.units))
		withdrawn += w.units
		owed[w.to.Addr] += w.units
		spent[w.from] += w.units
		step("%s withdrew %d uusdc to %s", accounts[w.from], w.units, w.to.Addr.Hex())
	}
	var root *bridgetypes.QueryRootResponse
	harness.WaitFor(t, 60*time.Second, "a root of every withdrawal, confirmed by all three (the rotated key too)", func() bool {
		r, err := q.Root(ctx, &bridgetypes.QueryRootRequest{})
		root = r
		return err == nil && r.Root.TotalCumulative.Int64() == withdrawn && r.Root.ReadyHeight > 0 && len(r.Confirms) == 3
	})
	require.Equal(t, newValset.Nonce, root.Root.ValsetNonce)
	require.True(t, slices.ContainsFunc(root.Confirms, func(cf bridgetypes.Confirm) bool { return cf.EvmAddress == rotated.Addr.Hex() }))
	step("root epoch %d (total %s) signed by valset %d", root.Root.Epoch, root.Root.TotalCumulative, root.Root.ValsetNonce)

	// claim refuses until the relayer has proposed the root and accepted it
	// after the timelock; then it pays each address its cumulative total.
	for _, p := range payees {
		var paid int64
		harness.WaitFor(t, 60*time.Second, "claim paying "+p.Addr.Hex(), func() bool {
			out, err := runBridgeErr(bridge, "claim", p.Addr.Hex(), "--node", c.RPC, "--eth-rpc", g.URL, "--eth-key", relayer.File)
			if err != nil {
				// "nothing to claim" until a root is accepted; anything
				// else (a root accepted under the claim) is retried too.
				if !strings.Contains(out, "nothing to claim") {
					step("claim %s failed, retrying: %s", p.Addr.Hex(), harness.Tail(out, 1))
				}
				return false
			}
			m := paidRe.FindStringSubmatch(strings.TrimSpace(out))
			require.NotNil(t, m, "claim printed %q", out)
			require.Equal(t, p.Addr.Hex(), m[2])
			n, _ := strconv.ParseInt(m[1], 10, 64)
			paid += n
			step("claimed: %s", strings.TrimSpace(out))
			return paid >= owed[p.Addr]
		})
		require.Equal(t, owed[p.Addr], paid)
	}
	_, err = runBridgeErr(bridge, "claim", payees[0].Addr.Hex(), "--node", c.RPC, "--eth-rpc", g.URL, "--eth-key", relayer.File)
	require.ErrorContains(t, err, "nothing to claim")

	st, err := q.Status(ctx, &bridgetypes.QueryStatusRequest{})
	require.NoError(t, err)
	claimed := func(a common.Address) int64 {
		return vaultView(t, ctx, vaultC, vault.PackClaimed(a), vault.UnpackClaimed).Int64()
	}
	figs := []figure{
		{"EVM vault depositNonce", int64(vaultView(t, ctx, vaultC, vault.PackDepositNonce(), vault.UnpackDepositNonce)), int64(len(deposits))},
		{"EVM vault totalDeposited", vaultView(t, ctx, vaultC, vault.PackTotalDeposited(), vault.UnpackTotalDeposited).Int64(), deposited},
		{"EVM vault totalClaimed", vaultView(t, ctx, vaultC, vault.PackTotalClaimed(), vault.UnpackTotalClaimed).Int64(), withdrawn},
		{"EVM vault valsetNonce", int64(vaultView(t, ctx, vaultC, vault.PackValsetNonce(), vault.UnpackValsetNonce)), int64(newValset.Nonce)},
		{"EVM vault USDC", g.usdcBalance(token, vaultAddr), deposited - withdrawn},
		{"idlegpu last credited nonce", int64(st.Progress.LastCreditedNonce), int64(len(deposits))},
		{"idlegpu bridge deposited", st.Totals.Deposited.Int64(), deposited},
		{"idlegpu bridge withdrawn", st.Totals.Withdrawn.Int64(), withdrawn},
	}
	for i, d := range depositors {
		figs = append(figs, figure{fmt.Sprintf("EVM depositor-%d USDC", i+1), g.usdcBalance(token, d.Addr), minted - credits[i]})
	}
	for i, p := range payees {
		figs = append(figs,
			figure{fmt.Sprintf("EVM payee-%d USDC", i+1), g.usdcBalance(token, p.Addr), owed[p.Addr]},
			figure{fmt.Sprintf("EVM vault claimed(payee-%d)", i+1), claimed(p.Addr), owed[p.Addr]})
	}
	for i, a := range addrs {
		figs = append(figs, figure{fmt.Sprintf("idlegpu %s uusdc", accounts[i]), c.Balance(a, "uusdc"), credits[i] - spent[i]})
	}
	requireFigures(t, "balances", figs)
	step("every deposit credited once, every withdrawal claimed: every figure matches")
}
