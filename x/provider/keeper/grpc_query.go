package keeper

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idlegpu/idlegpu/x/provider/types"
)

type querier struct {
	Keeper
}

var _ types.QueryServer = querier{}

// NewQuerier returns the x/provider Query service.
func NewQuerier(k Keeper) types.QueryServer {
	return querier{Keeper: k}
}

// Params returns the current module parameters.
func (q querier) Params(ctx context.Context, req *types.QueryParamsRequest) (*types.QueryParamsResponse, error) {
	if req == nil {
		return nil, status.Error(codes.InvalidArgument, "empty request")
	}
	params, err := q.Keeper.Params.Get(ctx)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return &types.QueryParamsResponse{Params: params}, nil
}
