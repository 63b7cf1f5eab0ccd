package keeper

import (
	"context"
	"errors"
	"slices"

	"cosmossdk.io/collections"
	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/offer/types"
)

// Offer returns an offer by id, or ErrOfferNotFound.
func (k Keeper) Offer(ctx context.Context, id uint64) (types.Offer, error) {
	o, err := k.Offers.Get(ctx, id)
	if errors.Is(err, collections.ErrNotFound) {
		return o, errorsmod.Wrapf(types.ErrOfferNotFound, "offer %d", id)
	}
	return o, err
}

// saveOffer moves the store from before to after in one step: the offer
// itself, its market index keys, the GPU → offer map, the provider's offer
// set and its stats. nil before creates; nil after deletes. Every write to an
// offer goes through here, so the indexes cannot drift from the offers.
func (k Keeper) saveOffer(ctx context.Context, before, after *types.Offer) error {
	ref := after
	if ref == nil {
		ref = before
	}
	provider, err := k.addressCodec.StringToBytes(ref.Provider)
	if err != nil {
		return err
	}
	if err := k.moveIndex(ctx, before, after); err != nil {
		return err
	}
	if err := k.moveGPUs(ctx, before, after); err != nil {
		return err
	}
	if err := k.updateStats(ctx, provider, before, after); err != nil {
		return err
	}
	pk := collections.Join(sdk.AccAddress(provider), ref.Id)
	if after == nil {
		if err := k.ProviderOffers.Remove(ctx, pk); err != nil {
			return err
		}
		return k.Offers.Remove(ctx, ref.Id)
	}
	if err := k.ProviderOffers.Set(ctx, pk); err != nil {
		return err
	}
	return k.Offers.Set(ctx, after.Id, *after)
}

// moveIndex removes before's index keys that after lacks and adds after's
// new ones (a price change moves the offer within the index in the same
// write batch). Keys in both are left alone: most saves (a GPU leased or
// freed) change no key, and rewriting one would still dirty the IAVL tree.
func (k Keeper) moveIndex(ctx context.Context, before, after *types.Offer) error {
	for _, idx := range []struct {
		set      collections.KeySet[types.IndexKey]
		anyModel bool
	}{{k.MarketIndex, false}, {k.AnyModelIndex, true}} {
		var old, cur []types.IndexKey
		if before != nil {
			old = before.IndexKeys(idx.anyModel)
		}
		if after != nil {
			cur = after.IndexKeys(idx.anyModel)
		}
		for _, key := range old {
			if !slices.ContainsFunc(cur, key.Equal) {
				if err := idx.set.Remove(ctx, key); err != nil {
					return err
				}
			}
		}
		for _, key := range cur {
			if !slices.ContainsFunc(old, key.Equal) {
				if err := idx.set.Set(ctx, key); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// moveGPUs keeps GPUOffers equal to the union of the offers' GPU lists.
func (k Keeper) moveGPUs(ctx context.Context, before, after *types.Offer) error {
	var old, cur []string
	if before != nil {
		old = before.GpuUuids
	}
	if after != nil {
		cur = after.GpuUuids
	}
	for _, u := range old {
		if !slices.Contains(cur, u) {
			if err := k.GPUOffers.Remove(ctx, u); err != nil {
				return err
			}
		}
	}
	for _, u := range cur {
		if !slices.Contains(old, u) {
			if err := k.GPUOffers.Set(ctx, u, after.Id); err != nil {
				return err
			}
		}
	}
	return nil
}
