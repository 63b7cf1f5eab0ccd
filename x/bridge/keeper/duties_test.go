package keeper_test

import (
	"testing"

	"cosmossdk.io/collections"
	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/x/bridge/types"
)

// TestDutyChecksHaveTheirOwnBound: max_duty_checks_per_block, not
// max_credits_per_block, bounds the missed-duty checks of one EndBlock. Ten
// deposit checks are due; with one credit and three checks a block, three
// are run per block, in due order, and the queue is empty after four blocks.
func TestDutyChecksHaveTheirOwnBound(t *testing.T) {
	n := newNetwork(t)
	ctx := n.app.NewUncachedContext(false, n.app.GetContextForCheckTx(nil).BlockHeader())
	k := n.app.BridgeKeeper
	params, err := k.Params.Get(ctx)
	require.NoError(t, err)
	params.MaxCreditsPerBlock, params.MaxDutyChecksPerBlock = 1, 3
	require.NoError(t, params.Validate())
	require.NoError(t, k.Params.Set(ctx, params))
	for id := uint64(1001); id <= 1010; id++ {
		require.NoError(t, k.Due.Set(ctx, collections.Join3(ctx.BlockHeight(), types.DueDeposit, id)))
	}
	due := func() []uint64 {
		var ids []uint64
		it, err := k.Due.Iterate(ctx, nil)
		require.NoError(t, err)
		defer it.Close()
		for ; it.Valid(); it.Next() {
			key, err := it.Key()
			require.NoError(t, err)
			if key.K3() > 1000 {
				ids = append(ids, key.K3())
			}
		}
		return ids
	}
	for _, left := range [][]uint64{
		{1004, 1005, 1006, 1007, 1008, 1009, 1010},
		{1007, 1008, 1009, 1010},
		{1010},
		nil,
	} {
		require.NoError(t, k.EndBlock(ctx))
		require.Equal(t, left, due())
	}
}
