package keeper

import (
	"context"
	"errors"

	"cosmossdk.io/collections"

	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/types/query"

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
	domain, err := q.EVMDomain(ctx)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return &types.QueryParamsResponse{Params: params, EvmChainId: domain.ChainID, VerifyingContract: domain.VerifyingContract.Hex()}, nil
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

// RenterJobs pages through a renter's jobs, optionally of one status.
func (q querier) RenterJobs(ctx context.Context, req *types.QueryRenterJobsRequest) (*types.QueryRenterJobsResponse, error) {
	if req == nil {
		return nil, status.Error(codes.InvalidArgument, "empty request")
	}
	addr, err := q.addressCodec.StringToBytes(req.Renter)
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "renter %q: %s", req.Renter, err)
	}
	jobs, page, err := query.CollectionFilteredPaginate(ctx, q.Keeper.RenterJobs, req.Pagination,
		func(key collections.Pair[sdk.AccAddress, uint64], _ collections.NoValue) (bool, error) {
			if req.Status == types.JOB_STATUS_UNSPECIFIED {
				return true, nil
			}
			j, err := q.Jobs.Get(ctx, key.K2())
			return err == nil && j.Status == req.Status, err
		},
		func(key collections.Pair[sdk.AccAddress, uint64], _ collections.NoValue) (types.Job, error) {
			return q.Jobs.Get(ctx, key.K2())
		},
		query.WithCollectionPaginationPairPrefix[sdk.AccAddress, uint64](addr))
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	return &types.QueryRenterJobsResponse{Jobs: jobs, Pagination: page}, nil
}

// ProviderLeases pages through a provider's leases, optionally of one status.
func (q querier) ProviderLeases(ctx context.Context, req *types.QueryProviderLeasesRequest) (*types.QueryLeasesResponse, error) {
	if req == nil {
		return nil, status.Error(codes.InvalidArgument, "empty request")
	}
	return q.leases(ctx, q.Keeper.ProviderLeases, req.Provider, req.Status, req.Pagination)
}

// RenterLeases pages through a renter's leases, optionally of one status.
func (q querier) RenterLeases(ctx context.Context, req *types.QueryRenterLeasesRequest) (*types.QueryLeasesResponse, error) {
	if req == nil {
		return nil, status.Error(codes.InvalidArgument, "empty request")
	}
	return q.leases(ctx, q.Keeper.RenterLeases, req.Renter, req.Status, req.Pagination)
}

func (q querier) leases(ctx context.Context, index collections.KeySet[collections.Pair[sdk.AccAddress, uint64]], owner string,
	want types.LeaseStatus, pageReq *query.PageRequest,
) (*types.QueryLeasesResponse, error) {
	addr, err := q.addressCodec.StringToBytes(owner)
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "address %q: %s", owner, err)
	}
	leases, page, err := query.CollectionFilteredPaginate(ctx, index, pageReq,
		func(key collections.Pair[sdk.AccAddress, uint64], _ collections.NoValue) (bool, error) {
			if want == types.LEASE_STATUS_UNSPECIFIED {
				return true, nil
			}
			l, err := q.Leases.Get(ctx, key.K2())
			return err == nil && l.Status == want, err
		},
		func(key collections.Pair[sdk.AccAddress, uint64], _ collections.NoValue) (types.Lease, error) {
			return q.Leases.Get(ctx, key.K2())
		},
		query.WithCollectionPaginationPairPrefix[sdk.AccAddress, uint64](addr))
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	return &types.QueryLeasesResponse{Leases: leases, Pagination: page}, nil
}
