package check

import (
	"context"

	"github.com/cosmos/gogoproto/proto"

	"cosmossdk.io/collections"
	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"
)

// Validatable is a module's Params: Validate wraps the module's ErrInvalidParams.
type Validatable interface {
	Validate() error
}

// UpdateParams is what every module's MsgUpdateParams does, in the order
// that keeps a rejected message free of side effects: check the signer is
// the authority, validate every param, run the checks against other
// modules' state (crossChecks), then store them and emit event.
func UpdateParams[P Validatable](
	ctx context.Context,
	keeperAuthority, signer string,
	params P,
	store collections.Item[P],
	errInvalidAuthority *errorsmod.Error,
	event proto.Message,
	crossChecks ...func() error,
) error {
	sdkCtx := sdk.UnwrapSDKContext(ctx)
	if err := Authority(sdkCtx, keeperAuthority, signer, errInvalidAuthority); err != nil {
		return err
	}
	if err := params.Validate(); err != nil {
		return err
	}
	for _, c := range crossChecks {
		if err := c(); err != nil {
			return err
		}
	}
	if err := store.Set(ctx, params); err != nil {
		return err
	}
	return sdkCtx.EventManager().EmitTypedEvent(event)
}
