package keeper_test

import (
	"encoding/binary"
	"testing"

	"cosmossdk.io/math"
	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/app/apptesting"
	"github.com/idlegpu/idlegpu/x/bridge/types"
)

// TestBridgeGas records the gas of the bridge's transactions (whole tx,
// ante included, through the real app) and fails on growth of more than
// about 10 % over the figures in docs/benchmarks.md.
func TestBridgeGas(t *testing.T) {
	n := newNetwork(t)
	most := map[string]uint64{}
	note := func(name string, gas int64) {
		t.Logf("%-22s %7d gas", name, gas)
		most[name] = max(most[name], uint64(gas))
	}
	for i := range 4 {
		r := n.tx(i, n.register(i))
		n.ok(r)
		note("MsgRegisterEvmSigner", r.GasUsed)
	}
	userEvm := common.BytesToAddress(n.accs[4].Address)
	for i := range 3 { // crediting is EndBlock's work, not the tx's
		r := n.tx(i, n.attest(i, 1, userEvm, 5_000_000))
		n.ok(r)
		note("MsgAttestDeposit", r.GasUsed)
	}
	r := n.tx(4, &types.MsgWithdrawToEvm{Sender: n.accs[4].Address.String(),
		EvmRecipient: "0x00000000000000000000000000000000000000aa", Amount: sdk.NewInt64Coin("uusdc", 3_000_000)})
	n.ok(r)
	note("MsgWithdrawToEvm", r.GasUsed)
	for n.status().Progress.LastEpoch == 0 {
		apptesting.NextBlock(t, n.app)
	}
	root, err := n.app.BridgeKeeper.Roots.Get(n.ctx(), 1)
	require.NoError(t, err)
	for i := range 3 {
		sig, err := types.SignDigest(n.evm[i], common.HexToHash(root.Digest))
		require.NoError(t, err)
		r := n.tx(i, &types.MsgConfirmRoot{Orchestrator: n.accs[i].Address.String(), Epoch: 1, Signature: sig})
		n.ok(r)
		note("MsgConfirmRoot", r.GasUsed)
	}
	for name, ceiling := range map[string]uint64{
		"MsgRegisterEvmSigner": 97_000,  // 89,771 (the key is also kept in SignerKeys)
		"MsgAttestDeposit":     95_000,  // 86,821 (the claim is also kept in VoteHistory)
		"MsgWithdrawToEvm":     115_000, // 107,159 (with the sender's unbacked mark read)
		"MsgConfirmRoot":       81_000,  // 74,667 for the one that makes the root ready
	} {
		require.LessOrEqual(t, most[name], ceiling, name)
	}
}

// BenchmarkBuildRoot is the EndBlock of a payout epoch at max_recipients
// (10,000 EVM accounts): the tree built from every cumulative total, its
// 10,000 leaves written for proofs, the root stored.
func BenchmarkBuildRoot(b *testing.B) {
	n := newNetwork(b)
	for i := range 3 {
		n.ok(n.tx(i, n.register(i)))
	}
	k := n.app.BridgeKeeper
	ctx := n.app.NewUncachedContext(false, n.app.GetContextForCheckTx(nil).BlockHeader())
	params, err := k.Params.Get(ctx)
	require.NoError(b, err)
	total := math.ZeroInt()
	for i := range params.MaxRecipients {
		var a common.Address
		binary.BigEndian.PutUint32(a[16:], i+1)
		amt := math.NewInt(int64(1_000_000 + i))
		require.NoError(b, k.Cumulative.Set(ctx, a.Bytes(), amt))
		total = total.Add(amt)
	}
	require.NoError(b, k.Totals.Set(ctx, types.Totals{Deposited: total, Withdrawn: total, Unbacked: math.ZeroInt()}))
	p, err := k.Progress.Get(ctx)
	require.NoError(b, err)
	p.WithdrawnSinceRoot, p.Recipients = true, params.MaxRecipients
	require.NoError(b, k.Progress.Set(ctx, p))

	epochCtx := n.ctx().WithBlockHeight(int64(params.PayoutEpochBlocks) * 1_000)
	b.ResetTimer()
	for b.Loop() {
		c, _ := epochCtx.CacheContext()
		if err := k.EndBlock(c); err != nil {
			b.Fatal(err)
		}
		if pr, _ := k.Progress.Get(c); pr.LastEpoch != p.LastEpoch+1 {
			b.Fatalf("no root built: epoch %d", pr.LastEpoch)
		}
	}
}
