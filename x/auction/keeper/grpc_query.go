package keeper

import (
	"context"
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idlegpu/idlegpu/x/auction/types"
)

type querier struct {
	Keeper
}

var _ types.QueryServer = querier{}

// NewQuerier returns the x/auction Query service.
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

// Job returns one job.
func (q querier) Job(ctx context.Context, req *types.QueryJobRequest) (*types.QueryJobResponse, error) {
	if req == nil {
		return nil, status.Error(codes.InvalidArgument, "empty request")
	}
	j, err := q.Keeper.Job(ctx, req.Id)
	if err != nil {
		return nil, grpcErr(err)
	}
	return &types.QueryJobResponse{Job: j}, nil
}

// JobBids returns a job's bids (at most max_bids_per_job).
func (q querier) JobBids(ctx context.Context, req *types.QueryJobBidsRequest) (*types.QueryJobBidsResponse, error) {
	if req == nil {
		return nil, status.Error(codes.InvalidArgument, "empty request")
	}
	bids, err := q.Keeper.JobBids(ctx, req.JobId)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return &types.QueryJobBidsResponse{Bids: bids}, nil
}

// Lease returns one lease.
func (q querier) Lease(ctx context.Context, req *types.QueryLeaseRequest) (*types.QueryLeaseResponse, error) {
	if req == nil {
		return nil, status.Error(codes.InvalidArgument, "empty request")
	}
	l, err := q.Keeper.Lease(ctx, req.Id)
	if err != nil {
		return nil, grpcErr(err)
	}
	return &types.QueryLeaseResponse{Lease: l}, nil
}

// grpcErr maps not-found errors to codes.NotFound so clients can tell them apart.
func grpcErr(err error) error {
	if errors.Is(err, types.ErrJobNotFound) || errors.Is(err, types.ErrLeaseNotFound) {
		return status.Error(codes.NotFound, err.Error())
	}
	return status.Error(codes.Internal, err.Error())
}
