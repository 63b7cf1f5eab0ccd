package keeper

import (
	"context"

	sdk "github.com/cosmos/cosmos-sdk/types"
)

// EndBlock runs the bridge's timed work, each step bounded by a param:
// credit attested deposits in order, make a valset when power moved, build
// the epoch's payout root, record missed duties, prune old roots.
func (k Keeper) EndBlock(ctx context.Context) error {
	sdkCtx := sdk.UnwrapSDKContext(ctx)
	params, err := k.Params.Get(ctx)
	if err != nil {
		return err
	}
	for _, step := range []func(sdk.Context) error{
		func(c sdk.Context) error { return k.creditDeposits(c, params) },
		func(c sdk.Context) error { return k.updateValset(c, params) },
		func(c sdk.Context) error { return k.buildRoot(c, params) },
		func(c sdk.Context) error { return k.checkDuties(c, params) },
		func(c sdk.Context) error { return k.pruneRoots(c, params) },
	} {
		if err := step(sdkCtx); err != nil {
			return err
		}
	}
	return nil
}
