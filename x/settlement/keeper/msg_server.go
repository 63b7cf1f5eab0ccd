package keeper

import (
	"context"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/internal/check"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

type msgServer struct {
	Keeper
}

var _ types.MsgServer = msgServer{}

// NewMsgServerImpl returns the x/settlement Msg service.
func NewMsgServerImpl(k Keeper) types.MsgServer {
	return msgServer{Keeper: k}
}

// UpdateParams replaces the params; only the module authority may call it.
func (m msgServer) UpdateParams(ctx context.Context, msg *types.MsgUpdateParams) (*types.MsgUpdateParamsResponse, error) {
	event := &types.EventParamsUpdated{Authority: msg.Authority, Params: msg.Params}
	if err := check.Authority(sdk.UnwrapSDKContext(ctx), m.authority, msg.Authority, types.ErrInvalidAuthority); err != nil {
		return nil, err
	}
	if err := m.checkStepPayment(ctx, msg.Params); err != nil {
		return nil, err
	}
	if err := check.UpdateParams(ctx, m.authority, msg.Authority, msg.Params, m.Params, types.ErrInvalidAuthority, event); err != nil {
		return nil, err
	}
	return &types.MsgUpdateParamsResponse{}, nil
}
