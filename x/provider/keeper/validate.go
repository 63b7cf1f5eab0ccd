package keeper

import (
	"context"

	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/provider/types"
)

// operatorProvider resolves a message's operator to its provider: the
// signer must be a registered provider's operator.
func (k Keeper) operatorProvider(ctx context.Context, operator string) (sdk.AccAddress, types.Provider, error) {
	addr, err := k.operator(operator)
	if err != nil {
		return nil, types.Provider{}, err
	}
	p, err := k.provider(ctx, addr)
	return addr, p, err
}

// actingFor resolves (signer, provider) for messages an agent may send: the
// provider must exist and the signer be its operator or one of its agents.
func (k Keeper) actingFor(ctx context.Context, signer, provider string) (sdk.AccAddress, types.Provider, error) {
	signerAddr, err := k.operator(signer)
	if err != nil {
		return nil, types.Provider{}, err
	}
	addr, p, err := k.operatorProvider(ctx, provider)
	if err != nil {
		return nil, p, err
	}
	ok, err := k.IsAuthorized(ctx, addr, signerAddr)
	if err != nil {
		return nil, p, err
	}
	if !ok {
		return nil, p, errorsmod.Wrapf(types.ErrUnauthorized, "%s is neither the operator of %s nor one of its agents", signer, provider)
	}
	return addr, p, nil
}

// notTombstoned refuses a tombstoned provider.
func notTombstoned(p types.Provider) error {
	if p.Status == types.PROVIDER_STATUS_TOMBSTONED {
		return errorsmod.Wrapf(types.ErrTombstoned, "%s", p.Operator)
	}
	return nil
}

// validateStakeAmount checks a bond or unbond amount: positive and in the stake denom.
func validateStakeAmount(amount sdk.Coin, params types.Params) error {
	if err := types.ValidateStakeCoin(amount); err != nil {
		return err
	}
	if amount.Denom != params.StakeDenom() {
		return errorsmod.Wrapf(types.ErrInvalidStake, "%s: stake is bonded in %s", amount, params.StakeDenom())
	}
	return nil
}
