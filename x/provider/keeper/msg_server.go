package keeper

import (
	"context"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/internal/check"
	"github.com/idlegpu/idlegpu/x/provider/types"
)

// msgServer handles x/provider's messages. Every handler checks all of its
// input before it writes anything, so a rejected message changes nothing.
type msgServer struct {
	Keeper
}

var _ types.MsgServer = msgServer{}

// NewMsgServerImpl returns the x/provider Msg service.
func NewMsgServerImpl(k Keeper) types.MsgServer {
	return msgServer{Keeper: k}
}

// UpdateParams replaces the params; only the module authority may call it,
// and never to change the stake denom (Params.ValidateUpdate).
func (m msgServer) UpdateParams(ctx context.Context, msg *types.MsgUpdateParams) (*types.MsgUpdateParamsResponse, error) {
	if err := check.Authority(sdk.UnwrapSDKContext(ctx), m.authority, msg.Authority, types.ErrInvalidAuthority); err != nil {
		return nil, err
	}
	current, err := m.Params.Get(ctx)
	if err != nil {
		return nil, err
	}
	if err := current.ValidateUpdate(msg.Params); err != nil {
		return nil, err
	}
	event := &types.EventParamsUpdated{Authority: msg.Authority, Params: msg.Params}
	if err := check.UpdateParams(ctx, m.authority, msg.Authority, msg.Params, m.Params, types.ErrInvalidAuthority, event); err != nil {
		return nil, err
	}
	return &types.MsgUpdateParamsResponse{}, nil
}
