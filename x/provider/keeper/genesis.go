package keeper

import (
	"context"

	"cosmossdk.io/collections"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/provider/types"
)

// InitGenesis validates gs and writes it to the store.
func (k Keeper) InitGenesis(ctx context.Context, gs *types.GenesisState) error {
	if err := gs.Validate(); err != nil {
		return err
	}
	if err := k.Params.Set(ctx, gs.Params); err != nil {
		return err
	}
	for _, p := range gs.Providers {
		addr, err := k.operator(p.Operator)
		if err != nil {
			return err
		}
		if err := k.Providers.Set(ctx, addr, p); err != nil {
			return err
		}
	}
	for _, r := range gs.Reputations {
		addr, err := k.operator(r.Provider)
		if err != nil {
			return err
		}
		if err := k.Reputations.Set(ctx, addr, r.Reputation); err != nil {
			return err
		}
	}
	for _, g := range gs.Gpus {
		addr, err := k.operator(g.Provider)
		if err != nil {
			return err
		}
		if err := k.GPUsByUUID.Set(ctx, g.Uuid, g); err != nil {
			return err
		}
		if err := k.ProviderGPUs.Set(ctx, collections.Join(addr, g.Uuid)); err != nil {
			return err
		}
	}
	for _, u := range gs.Unbondings {
		addr, err := k.operator(u.Provider)
		if err != nil {
			return err
		}
		if err := k.setUnbonding(ctx, addr, u); err != nil {
			return err
		}
	}
	for _, h := range gs.GpuHistories {
		if err := k.GPUHistories.Set(ctx, h.Uuid, h); err != nil {
			return err
		}
	}
	return k.UnbondingSeq.Set(ctx, gs.NextUnbondingId)
}

// ExportGenesis reads the module state back into a genesis state.
func (k Keeper) ExportGenesis(ctx context.Context) (*types.GenesisState, error) {
	params, err := k.Params.Get(ctx)
	if err != nil {
		return nil, err
	}
	gs := &types.GenesisState{Params: params}
	if err := k.Providers.Walk(ctx, nil, func(addr sdk.AccAddress, p types.Provider) (bool, error) {
		gs.Providers = append(gs.Providers, p)
		rep, err := k.Reputations.Get(ctx, addr)
		if err != nil {
			return true, err
		}
		gs.Reputations = append(gs.Reputations, types.ProviderReputation{Provider: p.Operator, Reputation: rep})
		return false, nil
	}); err != nil {
		return nil, err
	}
	if err := k.GPUsByUUID.Walk(ctx, nil, func(_ string, g types.GPU) (bool, error) {
		gs.Gpus = append(gs.Gpus, g)
		return false, nil
	}); err != nil {
		return nil, err
	}
	if err := k.Unbondings.Walk(ctx, nil, func(_ uint64, u types.UnbondingEntry) (bool, error) {
		gs.Unbondings = append(gs.Unbondings, u)
		return false, nil
	}); err != nil {
		return nil, err
	}
	if err := k.GPUHistories.Walk(ctx, nil, func(_ string, h types.GPUHistory) (bool, error) {
		gs.GpuHistories = append(gs.GpuHistories, h)
		return false, nil
	}); err != nil {
		return nil, err
	}
	gs.NextUnbondingId, err = k.UnbondingSeq.Peek(ctx)
	return gs, err
}
