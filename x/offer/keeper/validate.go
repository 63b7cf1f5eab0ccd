package keeper

import (
	"context"
	"errors"

	"cosmossdk.io/collections"
	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/offer/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

// address decodes a bech32 field of a message.
func (k Keeper) address(field, s string) (sdk.AccAddress, error) {
	b, err := k.addressCodec.StringToBytes(s)
	if err != nil {
		return nil, errorsmod.Wrapf(types.ErrInvalidAddress, "%s %q: %s", field, s, err)
	}
	return b, nil
}

// authorize checks that signer is the provider's operator or one of its
// agents (x/provider decides) and returns the provider.
func (k Keeper) authorize(ctx context.Context, signer sdk.AccAddress, provider sdk.AccAddress) (providertypes.Provider, error) {
	p, err := k.providers.Provider(ctx, provider)
	if err != nil {
		return p, err
	}
	ok, err := k.providers.IsAuthorized(ctx, provider, signer)
	if err != nil {
		return p, err
	}
	if !ok {
		return p, errorsmod.Wrapf(types.ErrUnauthorized, "%s is neither the operator of %s nor one of its agents", signer, p.Operator)
	}
	return p, nil
}

// offeredGPUs loads the GPUs to offer: each the provider's, in no offer, all
// one model. It returns the model and the smallest memory.
func (k Keeper) offeredGPUs(ctx context.Context, provider providertypes.Provider, uuids []string) (string, uint64, error) {
	var model string
	var memory uint64
	for i, u := range uuids {
		g, err := k.providers.GPU(ctx, u)
		if errorsmod.IsOf(err, providertypes.ErrGPUNotFound) || (err == nil && g.Provider != provider.Operator) {
			return "", 0, errorsmod.Wrapf(types.ErrGPUNotOwned, "%s is not a registered GPU of %s", u, provider.Operator)
		}
		if err != nil {
			return "", 0, err
		}
		id, err := k.GPUOffers.Get(ctx, u)
		if err == nil {
			return "", 0, errorsmod.Wrapf(types.ErrGPUInOffer, "%s is in offer %d", u, id)
		}
		if !errors.Is(err, collections.ErrNotFound) {
			return "", 0, err
		}
		if i == 0 {
			model, memory = g.Model, g.MemoryMib
			continue
		}
		if g.Model != model {
			return "", 0, errorsmod.Wrapf(types.ErrMixedModels, "%s is a %q, %s a %q", u, g.Model, uuids[0], model)
		}
		memory = min(memory, g.MemoryMib)
	}
	return model, memory, nil
}

// validateTerms checks terms against the params and the block time.
func validateTerms(ctx context.Context, terms types.OfferTerms, params types.Params) error {
	if err := terms.Validate(params); err != nil {
		return err
	}
	return terms.ValidateWindowsAt(sdk.UnwrapSDKContext(ctx).BlockTime())
}
