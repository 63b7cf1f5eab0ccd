package keeper

import (
	"context"

	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// InitGenesis validates gs and writes it to the store.
func (k Keeper) InitGenesis(ctx context.Context, gs *types.GenesisState) error {
	if err := gs.Validate(); err != nil {
		return err
	}
	return k.Params.Set(ctx, gs.Params)
}

// ExportGenesis reads the module state back into a genesis state.
func (k Keeper) ExportGenesis(ctx context.Context) (*types.GenesisState, error) {
	params, err := k.Params.Get(ctx)
	if err != nil {
		return nil, err
	}
	return &types.GenesisState{Params: params}, nil
}
