package keeper

import (
	"context"
	"errors"

	"cosmossdk.io/collections"
	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"
)

// credit adds amount to a provider's unclaimed rewards.
func (k Keeper) credit(ctx context.Context, provider sdk.AccAddress, amount sdk.Coin) error {
	if !amount.IsPositive() {
		return nil
	}
	key := collections.Join(provider, amount.Denom)
	cur, err := k.Rewards.Get(ctx, key)
	if errors.Is(err, collections.ErrNotFound) {
		cur = sdkmath.ZeroInt()
	} else if err != nil {
		return err
	}
	return k.Rewards.Set(ctx, key, cur.Add(amount.Amount))
}

// ProviderRewards returns a provider's unclaimed rewards.
func (k Keeper) ProviderRewards(ctx context.Context, provider sdk.AccAddress) (sdk.Coins, error) {
	it, err := k.Rewards.Iterate(ctx, collections.NewPrefixedPairRange[sdk.AccAddress, string](provider))
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var out sdk.Coins
	for ; it.Valid(); it.Next() {
		kv, err := it.KeyValue()
		if err != nil {
			return nil, err
		}
		out = append(out, sdk.NewCoin(kv.Key.K2(), kv.Value))
	}
	return out, nil // keys iterate in denom order: already sorted
}
