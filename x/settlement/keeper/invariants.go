package keeper

import (
	"context"
	"fmt"

	sdk "github.com/cosmos/cosmos-sdk/types"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"

	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// CheckInvariants runs every x/settlement invariant.
func (k Keeper) CheckInvariants(ctx context.Context) error {
	return k.RewardsBackedInvariant(ctx)
}

// RewardsBackedInvariant: the module account holds exactly the unclaimed
// rewards, per denom (fees leave at once; audit fees join with audits).
func (k Keeper) RewardsBackedInvariant(ctx context.Context) error {
	var want sdk.Coins
	it, err := k.Rewards.Iterate(ctx, nil)
	if err != nil {
		return err
	}
	defer it.Close()
	for ; it.Valid(); it.Next() {
		kv, err := it.KeyValue()
		if err != nil {
			return err
		}
		want = want.Add(sdk.NewCoin(kv.Key.K2(), kv.Value))
	}
	if got := k.bank.GetAllBalances(ctx, authtypes.NewModuleAddress(types.ModuleName)); !got.Equal(want) {
		return fmt.Errorf("settlement holds %s, unclaimed rewards are %s", got, want)
	}
	return nil
}
