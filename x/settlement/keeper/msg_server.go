package keeper

import (
	"context"

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
	steps := func() error { return m.checkStepPayment(ctx, msg.Params) }
	if err := check.UpdateParams(ctx, m.authority, msg.Authority, msg.Params, m.Params, types.ErrInvalidAuthority, event, steps); err != nil {
		return nil, err
	}
	return &types.MsgUpdateParamsResponse{}, nil
}
