package keeper_test

import (
	"bytes"
	"testing"

	"cosmossdk.io/collections"
	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/bridge/keeper"
)

// TestMigrate1to2: a version-1 bridge (no equivocation param, no vote
// history, unbacked supply as one number) gets the default slash, its
// standing votes in the history, and marks spread over the denom's holders
// in proportion to their balances, summing to totals.unbacked exactly: here
// alice's 1,000,000 USDC pre-mint and a renter's 10 USDC deposit, so the
// renter carries 9,999,900 of the unknown unbacked coins and the one unit
// left over goes to the holder first in address order.
func TestMigrate1to2(t *testing.T) {
	n := newDevNetwork(t)
	alice, renter := n.accs[4].Address, n.accs[5].Address
	n.deposit(1, renter, 10_000_000)
	n.ok(n.tx(0, n.attest(0, 2, common.BytesToAddress(renter), 7))) // a standing vote for nonce 2

	// Back to version 1.
	ctx := n.app.NewUncachedContext(false, n.app.GetContextForCheckTx(nil).BlockHeader())
	k := n.app.BridgeKeeper
	params, err := k.Params.Get(ctx)
	require.NoError(t, err)
	params.EquivocationSlashBps = 0
	require.NoError(t, k.Params.Set(ctx, params))
	require.NoError(t, k.VoteHistory.Clear(ctx, nil))
	require.NoError(t, k.Unbacked.Clear(ctx, nil))

	require.NoError(t, keeper.NewMigrator(k).Migrate1to2(ctx))

	params, err = k.Params.Get(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 500, params.EquivocationSlashBps)
	vote, err := k.VoteHistory.Get(ctx, collections.Join3(uint64(2), sdk.ValAddress(n.accs[0].Address), n.attest(0, 2, common.BytesToAddress(renter), 7).EvmBlockHash))
	require.NoError(t, err)
	require.Equal(t, "7", vote.Amount.String())

	wantAlice, wantRenter := int64(999_990_000_099), int64(9_999_900)
	if bytes.Compare(alice, renter) < 0 {
		wantAlice++
	} else {
		wantRenter++
	}
	for _, c := range []struct {
		name string
		want int64
		got  func() (int64, error)
	}{
		{"alice", wantAlice, func() (int64, error) { m, err := k.UnbackedOf(ctx, alice); return m.Int64(), err }},
		{"renter", wantRenter, func() (int64, error) { m, err := k.UnbackedOf(ctx, renter); return m.Int64(), err }},
	} {
		got, err := c.got()
		require.NoError(t, err)
		require.Equal(t, c.want, got, c.name)
	}
	require.NoError(t, k.CheckInvariants(ctx))

	// A bridged network (no unbacked coins) gets no mark.
	b := newNetwork(t)
	bctx := b.app.NewUncachedContext(false, b.app.GetContextForCheckTx(nil).BlockHeader())
	require.NoError(t, keeper.NewMigrator(b.app.BridgeKeeper).Migrate1to2(bctx))
	it, err := b.app.BridgeKeeper.Unbacked.Iterate(bctx, nil)
	require.NoError(t, err)
	require.False(t, it.Valid())
	require.NoError(t, it.Close())
}
