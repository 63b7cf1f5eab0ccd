package keeper

import (
	"context"
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"cosmossdk.io/collections"

	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/types/query"

	"github.com/idlegpu/idlegpu/x/settlement/types"
)

type querier struct {
	Keeper
}

var _ types.QueryServer = querier{}

// NewQuerier returns the x/settlement Query service.
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

// Rewards returns a provider's unclaimed rewards.
func (q querier) Rewards(ctx context.Context, req *types.QueryRewardsRequest) (*types.QueryRewardsResponse, error) {
	if req == nil {
		return nil, status.Error(codes.InvalidArgument, "empty request")
	}
	addr, err := q.addressCodec.StringToBytes(req.Provider)
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "provider: %v", err)
	}
	rewards, err := q.ProviderRewards(ctx, addr)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return &types.QueryRewardsResponse{Rewards: rewards}, nil
}

// LeaseProofs pages through a lease's retained proofs, by epoch.
func (q querier) LeaseProofs(ctx context.Context, req *types.QueryLeaseProofsRequest) (*types.QueryLeaseProofsResponse, error) {
	if req == nil {
		return nil, status.Error(codes.InvalidArgument, "empty request")
	}
	proofs, page, err := query.CollectionPaginate(ctx, q.Proofs, req.Pagination,
		func(_ collections.Pair[uint64, uint64], r types.ProofRecord) (types.ProofRecord, error) {
			return r, nil
		},
		query.WithCollectionPaginationPairPrefix[uint64, uint64](req.LeaseId))
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	return &types.QueryLeaseProofsResponse{Proofs: proofs, Pagination: page}, nil
}

// LeaseProgress returns a lease's settlement progress.
func (q querier) LeaseProgress(ctx context.Context, req *types.QueryLeaseProgressRequest) (*types.QueryLeaseProgressResponse, error) {
	if req == nil {
		return nil, status.Error(codes.InvalidArgument, "empty request")
	}
	p, err := q.Progress.Get(ctx, req.LeaseId)
	if errors.Is(err, collections.ErrNotFound) {
		return &types.QueryLeaseProgressResponse{Progress: types.LeaseProgress{LeaseId: req.LeaseId}}, nil
	}
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return &types.QueryLeaseProgressResponse{Progress: p}, nil
}

// Audit returns one audit.
func (q querier) Audit(ctx context.Context, req *types.QueryAuditRequest) (*types.QueryAuditResponse, error) {
	if req == nil {
		return nil, status.Error(codes.InvalidArgument, "empty request")
	}
	a, err := q.audit(ctx, req.AuditId)
	if errors.Is(err, types.ErrAuditNotFound) {
		return nil, status.Error(codes.NotFound, err.Error())
	}
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return &types.QueryAuditResponse{Audit: a}, nil
}

// Audits lists stored audits by id, optionally one provider's or one status.
func (q querier) Audits(ctx context.Context, req *types.QueryAuditsRequest) (*types.QueryAuditsResponse, error) {
	if req == nil {
		return nil, status.Error(codes.InvalidArgument, "empty request")
	}
	if req.Provider != "" {
		if _, err := q.addressCodec.StringToBytes(req.Provider); err != nil {
			return nil, status.Errorf(codes.InvalidArgument, "provider %q: %s", req.Provider, err)
		}
	}
	audits, page, err := query.CollectionFilteredPaginate(ctx, q.Keeper.Audits, req.Pagination,
		func(_ uint64, a types.Audit) (bool, error) {
			return (req.Provider == "" || a.Provider == req.Provider) &&
				(req.Status == types.AUDIT_STATUS_UNSPECIFIED || a.Status == req.Status), nil
		},
		func(_ uint64, a types.Audit) (types.Audit, error) { return a, nil })
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	return &types.QueryAuditsResponse{Audits: audits, Pagination: page}, nil
}

// AuditSamples returns the leaves an answered audit must open.
func (q querier) AuditSamples(ctx context.Context, req *types.QueryAuditSamplesRequest) (*types.QueryAuditSamplesResponse, error) {
	if req == nil {
		return nil, status.Error(codes.InvalidArgument, "empty request")
	}
	a, err := q.audit(ctx, req.AuditId)
	if errors.Is(err, types.ErrAuditNotFound) {
		return nil, status.Error(codes.NotFound, err.Error())
	}
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	leaves, err := q.samples(ctx, a)
	if err != nil {
		return nil, status.Error(codes.FailedPrecondition, err.Error())
	}
	proveBy, err := q.movedBy(ctx, a.ProveDeadline, a.LostMsAtAnswer)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return &types.QueryAuditSamplesResponse{Leaves: leaves, ProveBy: proveBy}, nil
}

// GPUVerification returns a GPU's audit record and whether its pass counts now.
func (q querier) GPUVerification(ctx context.Context, req *types.QueryGPUVerificationRequest) (*types.QueryGPUVerificationResponse, error) {
	if req == nil || req.GpuUuid == "" {
		return nil, status.Error(codes.InvalidArgument, "empty request")
	}
	v, err := q.verification(ctx, req.GpuUuid)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	ok, err := q.verified(ctx, req.GpuUuid, sdk.UnwrapSDKContext(ctx).BlockTime())
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return &types.QueryGPUVerificationResponse{Verification: v, Verified: ok}, nil
}
