package keeper

import (
	"context"

	"github.com/idlegpu/idlegpu/x/internal/check"
	"github.com/idlegpu/idlegpu/x/offer/types"
)

type msgServer struct {
	Keeper
}

var _ types.MsgServer = msgServer{}

// NewMsgServerImpl returns the x/offer Msg service.
func NewMsgServerImpl(k Keeper) types.MsgServer {
	return msgServer{Keeper: k}
}

// UpdateParams replaces the params; only the module authority may call it.
func (m msgServer) UpdateParams(ctx context.Context, msg *types.MsgUpdateParams) (*types.MsgUpdateParamsResponse, error) {
	event := &types.EventParamsUpdated{Authority: msg.Authority, Params: msg.Params}
	denoms := func() error { return m.checkPaymentDenoms(ctx, msg.Params.PaymentDenoms) }
	if err := check.UpdateParams(ctx, m.authority, msg.Authority, msg.Params, m.Params, types.ErrInvalidAuthority, event, denoms); err != nil {
		return nil, err
	}
	return &types.MsgUpdateParamsResponse{}, nil
}
