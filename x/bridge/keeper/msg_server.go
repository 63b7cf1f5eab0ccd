package keeper

import (
	"context"

	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/bridge/types"
)

type msgServer struct {
	Keeper
}

var _ types.MsgServer = msgServer{}

// NewMsgServerImpl returns the x/bridge Msg service.
func NewMsgServerImpl(k Keeper) types.MsgServer { return msgServer{Keeper: k} }

// UpdateParams replaces the params; only the module authority may.
func (m msgServer) UpdateParams(ctx context.Context, msg *types.MsgUpdateParams) (*types.MsgUpdateParamsResponse, error) {
	if msg.Authority != m.authority {
		return nil, errorsmod.Wrapf(types.ErrInvalidAuthority, "expected %s, got %s", m.authority, msg.Authority)
	}
	if err := msg.Params.Validate(); err != nil {
		return nil, err
	}
	old, err := m.Params.Get(ctx)
	if err != nil {
		return nil, err
	}
	// The books count one denom; a bridged supply cannot change its name.
	if old.Denom != msg.Params.Denom {
		if t, err := m.Totals.Get(ctx); err != nil || !t.Deposited.IsZero() || !t.Unbacked.IsZero() {
			return nil, errorsmod.Wrapf(types.ErrInvalidParams, "denom %q cannot change once it has a supply", old.Denom)
		}
	}
	if err := m.Params.Set(ctx, msg.Params); err != nil {
		return nil, err
	}
	return &types.MsgUpdateParamsResponse{}, sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(
		&types.EventParamsUpdated{Authority: msg.Authority, Params: msg.Params})
}
