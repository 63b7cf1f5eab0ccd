package keeper

import (
	"context"
	"errors"

	"cosmossdk.io/collections"
	errorsmod "cosmossdk.io/errors"
	"cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/bridge/types"
)

// hasSupermajority is the bridge's one threshold on the appchain: strictly
// more than two thirds of the bonded power (the same rule CometBFT commits
// blocks by; the vault applies it to normalised powers).
func hasSupermajority(power, total math.Int) bool {
	return total.IsPositive() && power.MulRaw(3).GT(total.MulRaw(2))
}

// bondedPower returns a validator's power as of the last block (0 when it
// is not in the active set).
func (k Keeper) bondedPower(ctx context.Context, val sdk.ValAddress) (int64, error) {
	p, err := k.staking.GetLastValidatorPower(ctx, val)
	if errors.Is(err, collections.ErrNotFound) {
		return 0, nil
	}
	return p, err
}

// orchestratorOf resolves the account that sent a bridge message to the
// validator it acts for, and that validator's signer.
func (k Keeper) orchestratorOf(ctx context.Context, orchestrator string) (sdk.ValAddress, types.EvmSigner, error) {
	acc, err := k.addressCodec.StringToBytes(orchestrator)
	if err != nil {
		return nil, types.EvmSigner{}, errorsmod.Wrapf(types.ErrInvalidAddress, "orchestrator: %v", err)
	}
	val, err := k.Orchestrators.Get(ctx, acc)
	if errors.Is(err, collections.ErrNotFound) {
		return nil, types.EvmSigner{}, errorsmod.Wrapf(types.ErrNotOrchestrator, "%s", orchestrator)
	}
	if err != nil {
		return nil, types.EvmSigner{}, err
	}
	signer, err := k.Signers.Get(ctx, val)
	return val, signer, err
}
