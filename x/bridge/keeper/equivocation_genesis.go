package keeper

import (
	"context"

	"cosmossdk.io/collections"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/bridge/types"
)

// initEquivocationGenesis writes every EVM key ever registered (the current
// signers' too, should the list omit them) and the punished equivocations.
func (k Keeper) initEquivocationGenesis(ctx context.Context, gs *types.GenesisState) error {
	for _, sk := range gs.SignerKeys {
		evm, err := types.ParseEvmAddress(sk.EvmAddress)
		if err != nil {
			return err
		}
		sk.EvmAddress = evm.Hex()
		if err := k.SignerKeys.Set(ctx, evm.Bytes(), sk); err != nil {
			return err
		}
	}
	for _, s := range gs.Signers {
		evm, err := types.ParseEvmAddress(s.EvmAddress)
		if err != nil {
			return err
		}
		s.EvmAddress = evm.Hex()
		if err := k.recordSignerKey(ctx, s); err != nil {
			return err
		}
	}
	for _, e := range gs.Equivocations {
		val, err := k.valCodec.StringToBytes(e.Validator)
		if err != nil {
			return err
		}
		if err := k.Equivocations.Set(ctx, collections.Join3(sdk.ValAddress(val), e.Kind, e.Id), e); err != nil {
			return err
		}
	}
	return nil
}

// exportEquivocationGenesis adds the EVM key history and the punished
// equivocations to gs.
func (k Keeper) exportEquivocationGenesis(ctx context.Context, gs *types.GenesisState) error {
	var err error
	if gs.SignerKeys, err = values(ctx, k.SignerKeys); err != nil {
		return err
	}
	gs.Equivocations, err = values(ctx, k.Equivocations)
	return err
}
