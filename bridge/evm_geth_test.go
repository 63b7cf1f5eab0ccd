package bridge

import (
	"context"
	"math/big"
	"os"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/contracts/bindings"
	"github.com/idlegpu/idlegpu/contracts/payout"
	bridgetypes "github.com/idlegpu/idlegpu/x/bridge/types"
)

// TestEVMSideOnGeth runs the bridge's EVM half against a real geth --dev,
// without the idlegpu chain: the orchestrator's deposit search, the
// relayer's signature assembly and vault transactions (a refused estimate
// names the vault's error), acceptance by block time.
func TestEVMSideOnGeth(t *testing.T) {
	if testing.Short() {
		t.Skip("starts geth --dev")
	}
	if os.Getenv("IDLEGPU_GETH") == "" {
		t.Skip("IDLEGPU_GETH is not set: build geth with `make geth` and set IDLEGPU_GETH=$PWD/build/tools/geth-v1.17.10")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	g := startGeth(t, ctx)
	deployer, renter, relayerKey, val, provider := g.actor("deployer"), g.actor("renter"), g.actor("relayer"), g.actor("validator"), g.actor("provider")
	g.fund(deployer.Addr, renter.Addr, relayerKey.Addr)
	token := g.deployToken(deployer)
	vs, err := payout.NewValset(1, []payout.Member{{Address: val.Addr, Power: 1}})
	require.NoError(t, err)
	vaultID := crypto.Keccak256Hash([]byte("evm side"))
	v := bindings.NewSettlementVault()
	vaultAddr, tx, err := bind.DeployContract(g.opts(deployer), common.FromHex(bindings.SettlementVaultMetaData.Bin), g.client,
		v.PackConstructor(token, vaultID, deployer.Addr, 2, vaultValset(vs)))
	require.NoError(t, err)
	g.wait(tx.Hash())

	cmd := &cobra.Command{}
	addEthRPCFlag(cmd)
	require.NoError(t, cmd.Flags().Set(flagEthRPC, g.URL))
	e, err := dialEVM(ctx, cmd, vaultAddr)
	require.NoError(t, err)
	require.Equal(t, g.chain, e.chainID)

	usdc := bindings.NewTestUSDC()
	tokenC := usdc.Instance(g.client, token)
	g.send(deployer, tokenC, usdc.PackMint(renter.Addr, big.NewInt(1_000)))
	g.send(renter, tokenC, usdc.PackApprove(vaultAddr, big.NewInt(1_000)))
	first := g.send(renter, e.vaultC, v.PackDeposit(big.NewInt(100), renter.Addr)).BlockNumber.Uint64()
	g.send(renter, e.vaultC, v.PackDeposit(big.NewInt(200), provider.Addr))
	last := g.send(renter, e.vaultC, v.PackDeposit(big.NewInt(300), renter.Addr)).BlockNumber.Uint64()

	o := newDepositAttester(discardLogger(), newMetrics("test"), nil, nil, e.client, vaultAddr)
	deps, err := o.depositsIn(ctx, 0, last)
	require.NoError(t, err)
	require.Len(t, deps, 3)
	for i, want := range []int64{100, 200, 300} {
		require.EqualValues(t, i+1, deps[i].Nonce)
		require.Equal(t, renter.Addr, deps[i].From)
		require.EqualValues(t, want, deps[i].Amount.Int64())
	}
	require.Equal(t, provider.Addr, deps[1].Recipient)
	require.Equal(t, first, deps[0].Raw.BlockNumber)
	deps, err = o.depositsIn(ctx, deps[1].Raw.BlockNumber, last)
	require.NoError(t, err)
	require.Len(t, deps, 2, "a search from a deposit's block finds it again (several can share a block)")

	// A root for the provider, signed by the set, proposed and accepted.
	tree, err := payout.NewTree([]payout.Entry{{Account: provider.Addr, Cumulative: big.NewInt(150)}})
	require.NoError(t, err)
	domain := payout.Domain{VaultID: vaultID, ChainID: g.chain, Vault: vaultAddr}
	digest, err := domain.RootDigest(1, 1, tree.Root(), tree.Total())
	require.NoError(t, err)
	sig, err := bridgetypes.SignDigest(val.key, digest)
	require.NoError(t, err)
	sigs, err := signatures(vs, []bridgetypes.Confirm{{EvmAddress: val.Addr.Hex(), Signature: sig}}, digest)
	require.NoError(t, err)
	_, err = e.send(ctx, relayerKey.key, e.vaultC, v.PackAcceptRoot(1))
	require.ErrorContains(t, err, "NoPendingRoot", "a refused estimate names the vault's error")
	_, err = e.send(ctx, relayerKey.key, e.vaultC, v.PackProposeRoot(vaultValset(vs), vaultSigs(sigs), 1, tree.Root(), tree.Total()))
	require.NoError(t, err)
	_, err = e.send(ctx, relayerKey.key, e.vaultC, v.PackAcceptRoot(1))
	require.ErrorContains(t, err, "TimelockNotExpired")

	r := &relayer{key: relayerKey.key, evm: e, m: newMetrics("test"), log: discardLogger()}
	require.Eventually(t, func() bool {
		require.NoError(t, r.acceptRoot(ctx, bridgeParams{}))
		acc, err := call(ctx, e, v.PackAcceptedRoot(), v.UnpackAcceptedRoot)
		require.NoError(t, err)
		return acc.Epoch == 1
	}, 30*time.Second, 500*time.Millisecond)

	// Two later roots pending at once, epoch 3 proposed after epoch 2: once
	// both timelocks have passed, one round accepts the highest, which
	// supersedes epoch 2.
	var due uint64
	for epoch := uint64(2); epoch <= 3; epoch++ {
		tr, err := payout.NewTree([]payout.Entry{{Account: provider.Addr, Cumulative: big.NewInt(150 + int64(epoch))}})
		require.NoError(t, err)
		d, err := domain.RootDigest(1, epoch, tr.Root(), tr.Total())
		require.NoError(t, err)
		sig, err := bridgetypes.SignDigest(val.key, d)
		require.NoError(t, err)
		sigs, err := signatures(vs, []bridgetypes.Confirm{{EvmAddress: val.Addr.Hex(), Signature: sig}}, d)
		require.NoError(t, err)
		rcpt, err := e.send(ctx, relayerKey.key, e.vaultC, v.PackProposeRoot(vaultValset(vs), vaultSigs(sigs), epoch, tr.Root(), tr.Total()))
		require.NoError(t, err)
		ev, err := v.UnpackRootProposedEvent(rcpt.Logs[0])
		require.NoError(t, err)
		due = ev.AcceptableAt
	}
	require.Eventually(t, func() bool {
		h, err := g.client.HeaderByNumber(ctx, nil)
		require.NoError(t, err)
		return h.Time >= due
	}, 30*time.Second, 200*time.Millisecond)
	require.NoError(t, r.acceptRoot(ctx, bridgeParams{}))
	acc, err := call(ctx, e, v.PackAcceptedRoot(), v.UnpackAcceptedRoot)
	require.NoError(t, err)
	require.Equal(t, uint64(3), acc.Epoch, "the highest acceptable root, in one round")
	_, err = e.send(ctx, relayerKey.key, e.vaultC, v.PackAcceptRoot(2))
	require.ErrorContains(t, err, "RootSuperseded")
	require.NoError(t, r.acceptRoot(ctx, bridgeParams{}), "nothing left to accept")
}
