package keeper

import (
	"context"

	"cosmossdk.io/collections"

	sdk "github.com/cosmos/cosmos-sdk/types"
)

// collectOwned loads, in key order, the values an owner's (owner, key) set
// points to in byKey: a provider's GPUs or unbonding entries. The sets are
// bounded by params (max_gpus_per_provider, max_unbonding_entries).
func collectOwned[K, V any](
	ctx context.Context,
	owned collections.KeySet[collections.Pair[sdk.AccAddress, K]],
	owner sdk.AccAddress,
	byKey collections.Map[K, V],
) ([]V, error) {
	iter, err := owned.Iterate(ctx, collections.NewPrefixedPairRange[sdk.AccAddress, K](owner))
	if err != nil {
		return nil, err
	}
	defer iter.Close()
	var out []V
	for ; iter.Valid(); iter.Next() {
		key, err := iter.Key()
		if err != nil {
			return nil, err
		}
		v, err := byKey.Get(ctx, key.K2())
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}
