package keeper

import (
	"context"
	"fmt"

	"cosmossdk.io/collections"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/offer/types"
)

// InitGenesis validates gs, checks it against x/provider (every offered GPU
// is registered to the offer's provider and committed there), and writes it
// with the indexes rebuilt from the offers.
func (k Keeper) InitGenesis(ctx context.Context, gs *types.GenesisState) error {
	if err := gs.Validate(); err != nil {
		return err
	}
	if err := k.Params.Set(ctx, gs.Params); err != nil {
		return err
	}
	if err := k.OfferSeq.Set(ctx, gs.NextOfferId); err != nil {
		return err
	}
	for i := range gs.Offers {
		o := &gs.Offers[i]
		provider, err := k.addressCodec.StringToBytes(o.Provider)
		if err != nil {
			return err
		}
		for _, u := range o.GpuUuids {
			g, err := k.providers.GPU(ctx, u)
			if err != nil {
				return fmt.Errorf("offer %d: %w", o.Id, err)
			}
			if g.Provider != o.Provider || !g.Committed {
				return fmt.Errorf("offer %d: gpu %s must be registered to %s and committed (owner %s, committed %t)", o.Id, u, o.Provider, g.Provider, g.Committed)
			}
		}
		if err := k.moveIndex(ctx, nil, o); err != nil {
			return err
		}
		if err := k.moveGPUs(ctx, nil, o); err != nil {
			return err
		}
		if err := k.ProviderOffers.Set(ctx, collections.Join(sdk.AccAddress(provider), o.Id)); err != nil {
			return err
		}
		if err := k.Offers.Set(ctx, o.Id, *o); err != nil {
			return err
		}
	}
	for _, st := range gs.ProviderStats {
		provider, err := k.addressCodec.StringToBytes(st.Provider)
		if err != nil {
			return err
		}
		if err := k.Stats.Set(ctx, provider, st); err != nil {
			return err
		}
	}
	return nil
}

// ExportGenesis reads the module state back into a genesis state; offers
// by id and stats by provider address bytes, re-sorted by bech32 string so
// the export validates.
func (k Keeper) ExportGenesis(ctx context.Context) (*types.GenesisState, error) {
	params, err := k.Params.Get(ctx)
	if err != nil {
		return nil, err
	}
	next, err := k.OfferSeq.Peek(ctx)
	if err != nil {
		return nil, err
	}
	gs := &types.GenesisState{Params: params, NextOfferId: next}
	if err := k.Offers.Walk(ctx, nil, func(_ uint64, o types.Offer) (bool, error) {
		gs.Offers = append(gs.Offers, o)
		return false, nil
	}); err != nil {
		return nil, err
	}
	if err := k.Stats.Walk(ctx, nil, func(_ sdk.AccAddress, st types.ProviderStats) (bool, error) {
		gs.ProviderStats = append(gs.ProviderStats, st)
		return false, nil
	}); err != nil {
		return nil, err
	}
	types.SortStats(gs.ProviderStats)
	return gs, nil
}
