package keeper

import (
	"context"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/internal/check"
	"github.com/idlegpu/idlegpu/x/provider/types"
)

type msgServer struct {
	Keeper
}

var _ types.MsgServer = msgServer{}

// NewMsgServerImpl returns the x/provider Msg service.
func NewMsgServerImpl(k Keeper) types.MsgServer {
	return msgServer{Keeper: k}
}

// UpdateParams replaces the params; only the module authority may call it.
func (m msgServer) UpdateParams(ctx context.Context, msg *types.MsgUpdateParams) (*types.MsgUpdateParamsResponse, error) {
	sdkCtx := sdk.UnwrapSDKContext(ctx)
	if err := check.Authority(sdkCtx, m.authority, msg.Authority, types.ErrInvalidAuthority); err != nil {
		return nil, err
	}
	if err := msg.Params.Validate(); err != nil {
		return nil, err
	}
	if err := m.Params.Set(ctx, msg.Params); err != nil {
		return nil, err
	}
	if err := sdkCtx.EventManager().EmitTypedEvent(&types.EventParamsUpdated{
		Authority: msg.Authority,
		Params:    msg.Params,
	}); err != nil {
		return nil, err
	}
	return &types.MsgUpdateParamsResponse{}, nil
}
