package keeper

import (
	"context"
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"cosmossdk.io/collections"

	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/types/query"

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

// Provider returns one provider and its reputation.
func (q querier) Provider(ctx context.Context, req *types.QueryProviderRequest) (*types.QueryProviderResponse, error) {
	if req == nil {
		return nil, status.Error(codes.InvalidArgument, "empty request")
	}
	addr, err := q.queryAddr(req.Operator)
	if err != nil {
		return nil, err
	}
	p, err := q.Keeper.Provider(ctx, addr)
	if err != nil {
		return nil, grpcErr(err)
	}
	rep, err := q.Reputations.Get(ctx, addr)
	if err != nil {
		return nil, grpcErr(err)
	}
	return &types.QueryProviderResponse{Provider: p, Reputation: rep}, nil
}

// Providers pages through all providers by operator address, each with
// the status the current params give it.
func (q querier) Providers(ctx context.Context, req *types.QueryProvidersRequest) (*types.QueryProvidersResponse, error) {
	if req == nil {
		return nil, status.Error(codes.InvalidArgument, "empty request")
	}
	params, err := q.Keeper.Params.Get(ctx)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	providers, page, err := query.CollectionPaginate(ctx, q.Keeper.Providers, req.Pagination,
		func(_ sdk.AccAddress, p types.Provider) (types.Provider, error) {
			p.Status = stakeStatus(p, params) // as Keeper.Provider reports it
			return p, nil
		})
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	return &types.QueryProvidersResponse{Providers: providers, Pagination: page}, nil
}

// GPU returns one GPU by UUID.
func (q querier) GPU(ctx context.Context, req *types.QueryGPURequest) (*types.QueryGPUResponse, error) {
	if req == nil {
		return nil, status.Error(codes.InvalidArgument, "empty request")
	}
	if err := types.ValidateGPUUUID(req.Uuid); err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	g, err := q.gpu(ctx, req.Uuid)
	if err != nil {
		return nil, grpcErr(err)
	}
	return &types.QueryGPUResponse{Gpu: g}, nil
}

// GPUHistory returns a deregistered GPU's record (NotFound: no record, the
// GPU is registered or was never deregistered).
func (q querier) GPUHistory(ctx context.Context, req *types.QueryGPUHistoryRequest) (*types.QueryGPUHistoryResponse, error) {
	if req == nil {
		return nil, status.Error(codes.InvalidArgument, "empty request")
	}
	if err := types.ValidateGPUUUID(req.Uuid); err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	h, err := q.GPUHistories.Get(ctx, req.Uuid)
	if err != nil {
		return nil, grpcErr(err)
	}
	return &types.QueryGPUHistoryResponse{History: h}, nil
}

// ProviderGPUs pages through one provider's GPUs by UUID.
func (q querier) ProviderGPUs(ctx context.Context, req *types.QueryProviderGPUsRequest) (*types.QueryProviderGPUsResponse, error) {
	if req == nil {
		return nil, status.Error(codes.InvalidArgument, "empty request")
	}
	addr, err := q.queryAddr(req.Provider)
	if err != nil {
		return nil, err
	}
	gpus, page, err := query.CollectionPaginate(ctx, q.Keeper.ProviderGPUs, req.Pagination,
		func(key collections.Pair[sdk.AccAddress, string], _ collections.NoValue) (types.GPU, error) {
			return q.GPUsByUUID.Get(ctx, key.K2())
		},
		query.WithCollectionPaginationPairPrefix[sdk.AccAddress, string](addr))
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	return &types.QueryProviderGPUsResponse{Gpus: gpus, Pagination: page}, nil
}

// Unbondings pages through one provider's unbonding entries by id (the
// oldest, which complete first, come first).
func (q querier) Unbondings(ctx context.Context, req *types.QueryUnbondingsRequest) (*types.QueryUnbondingsResponse, error) {
	if req == nil {
		return nil, status.Error(codes.InvalidArgument, "empty request")
	}
	addr, err := q.queryAddr(req.Provider)
	if err != nil {
		return nil, err
	}
	entries, page, err := query.CollectionPaginate(ctx, q.ProviderUnbondings, req.Pagination,
		func(key collections.Pair[sdk.AccAddress, uint64], _ collections.NoValue) (types.UnbondingEntry, error) {
			return q.Keeper.Unbondings.Get(ctx, key.K2())
		},
		query.WithCollectionPaginationPairPrefix[sdk.AccAddress, uint64](addr))
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	return &types.QueryUnbondingsResponse{Unbondings: entries, Pagination: page}, nil
}

// Reputation returns one provider's reputation.
func (q querier) Reputation(ctx context.Context, req *types.QueryReputationRequest) (*types.QueryReputationResponse, error) {
	if req == nil {
		return nil, status.Error(codes.InvalidArgument, "empty request")
	}
	addr, err := q.queryAddr(req.Provider)
	if err != nil {
		return nil, err
	}
	rep, err := q.reputation(ctx, addr)
	if err != nil {
		return nil, grpcErr(err)
	}
	return &types.QueryReputationResponse{Reputation: rep}, nil
}

func (q querier) queryAddr(s string) (sdk.AccAddress, error) {
	addr, err := q.operator(s)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	return addr, nil
}

// grpcErr maps not-found errors to codes.NotFound so clients can tell them apart.
func grpcErr(err error) error {
	if errors.Is(err, types.ErrProviderNotFound) || errors.Is(err, types.ErrGPUNotFound) || errors.Is(err, collections.ErrNotFound) {
		return status.Error(codes.NotFound, err.Error())
	}
	return status.Error(codes.Internal, err.Error())
}
