package keeper

import (
	"context"
	"errors"

	"cosmossdk.io/collections"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// feeOf is the protocol fee of a payment to provider, with the provider's
// carried remainder in the denom (types.CarriedFee), which it updates.
func (k Keeper) feeOf(ctx context.Context, provider sdk.AccAddress, pay sdk.Coin, rateBps uint32) (sdk.Coin, error) {
	key := collections.Join(provider, pay.Denom)
	rem, err := k.FeeRemainders.Get(ctx, key)
	if err != nil && !errors.Is(err, collections.ErrNotFound) {
		return sdk.Coin{}, err
	}
	fee, carried := types.CarriedFee(rem, pay, rateBps)
	if carried == 0 {
		return fee, k.FeeRemainders.Remove(ctx, key)
	}
	return fee, k.FeeRemainders.Set(ctx, key, carried)
}

// exportFeeRemainders lists the carried fee fractions for genesis, by
// provider and denom.
func (k Keeper) exportFeeRemainders(ctx context.Context) ([]types.FeeRemainder, error) {
	it, err := k.FeeRemainders.Iterate(ctx, nil)
	if err != nil {
		return nil, err
	}
	kvs, err := it.KeyValues()
	if err != nil {
		return nil, err
	}
	out := make([]types.FeeRemainder, 0, len(kvs))
	for _, kv := range kvs {
		provider, err := k.addressCodec.BytesToString(kv.Key.K1())
		if err != nil {
			return nil, err
		}
		out = append(out, types.FeeRemainder{Provider: provider, Denom: kv.Key.K2(), Remainder: kv.Value})
	}
	return out, nil
}
