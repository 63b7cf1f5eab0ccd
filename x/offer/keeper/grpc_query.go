package keeper

import (
	"context"
	"errors"
	"fmt"

	"cosmossdk.io/collections"

	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/types/query"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idlegpu/idlegpu/x/offer/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

type querier struct {
	Keeper
}

var _ types.QueryServer = querier{}

// NewQuerier returns the x/offer Query service.
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

// Offer returns one offer by id.
func (q querier) Offer(ctx context.Context, req *types.QueryOfferRequest) (*types.QueryOfferResponse, error) {
	if req == nil {
		return nil, status.Error(codes.InvalidArgument, "empty request")
	}
	o, err := q.Keeper.Offer(ctx, req.Id)
	if err != nil {
		return nil, grpcErr(err)
	}
	can, err := newWorkCache(q.Keeper).of(ctx, o.Provider)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return &types.QueryOfferResponse{Offer: o, ProviderCanTakeWork: can}, nil
}

// ProviderOffers pages through one provider's offers by id, and says
// whether the provider can take new work now (its OPEN offers are on sale
// only then).
func (q querier) ProviderOffers(ctx context.Context, req *types.QueryProviderOffersRequest) (*types.QueryProviderOffersResponse, error) {
	if req == nil {
		return nil, status.Error(codes.InvalidArgument, "empty request")
	}
	addr, err := q.addressCodec.StringToBytes(req.Provider)
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "provider %q: %s", req.Provider, err)
	}
	offers, page, err := query.CollectionPaginate(ctx, q.Keeper.ProviderOffers, req.Pagination,
		func(key collections.Pair[sdk.AccAddress, uint64], _ collections.NoValue) (types.Offer, error) {
			return q.Offers.Get(ctx, key.K2())
		},
		query.WithCollectionPaginationPairPrefix[sdk.AccAddress, uint64](addr))
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	can, err := q.canTakeWork(ctx, addr)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return &types.QueryProviderOffersResponse{Offers: offers, Pagination: page, ProviderCanTakeWork: can}, nil
}

// Search pages through the offers, by id, that match every filter given.
// OPEN (the default) keeps only offers whose provider can take new work
// now: what a job can be matched with.
func (q querier) Search(ctx context.Context, req *types.QuerySearchRequest) (*types.QuerySearchResponse, error) {
	if req == nil {
		return nil, status.Error(codes.InvalidArgument, "empty request")
	}
	match, err := searchFilter(req)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	work := newWorkCache(q.Keeper)
	offers, page, err := query.CollectionFilteredPaginate(ctx, q.Offers, req.Pagination,
		func(_ uint64, o types.Offer) (bool, error) {
			if !match(o) {
				return false, nil
			}
			if o.Status != types.OFFER_STATUS_OPEN {
				return true, nil
			}
			return work.of(ctx, o.Provider)
		},
		func(_ uint64, o types.Offer) (types.Offer, error) { return o, nil })
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	return &types.QuerySearchResponse{Offers: offers, Pagination: page}, nil
}

// searchFilter turns a search request into a predicate.
func searchFilter(req *types.QuerySearchRequest) (func(types.Offer) bool, error) {
	if req.Region != "" {
		if err := providertypes.ValidateRegion(req.Region); err != nil {
			return nil, err
		}
	}
	if req.Lane != types.LANE_UNSPECIFIED && !types.IsSingleLane(req.Lane) {
		return nil, fmt.Errorf("lane %s: must be one lane", req.Lane)
	}
	if req.MaxPrice != nil && (sdk.ValidateDenom(req.MaxPrice.Denom) != nil || req.MaxPrice.Amount.IsNil() || req.MaxPrice.Amount.IsNegative()) {
		return nil, fmt.Errorf("max_price %s: must be a valid coin", req.MaxPrice)
	}
	wantStatus := req.Status
	if wantStatus == types.OFFER_STATUS_UNSPECIFIED {
		wantStatus = types.OFFER_STATUS_OPEN
	}
	lanes := types.AllLanes
	if req.Lane != types.LANE_UNSPECIFIED {
		lanes = uint32(req.Lane)
	}
	return func(o types.Offer) bool {
		if o.Status != wantStatus || (req.Model != "" && o.Model != req.Model) || o.MemoryMib < req.MinMemoryMib ||
			(req.Region != "" && !providertypes.RegionMatches(req.Region, o.Region)) || o.Terms.Lanes&lanes == 0 {
			return false
		}
		if req.MaxPrice == nil {
			return true
		}
		for _, l := range types.Lanes(o.Terms.Lanes & lanes) {
			if p, ok := o.Terms.Price(l); ok && p.Denom == req.MaxPrice.Denom && p.Amount.LTE(req.MaxPrice.Amount) {
				return true
			}
		}
		return false
	}, nil
}

// MaxCandidatesLimit bounds one Candidates query's answer.
const MaxCandidatesLimit = 100

// Candidates runs WalkCandidates for a job shape at the current block time,
// skipping offers whose provider cannot take new work (as x/auction does).
func (q querier) Candidates(ctx context.Context, req *types.QueryCandidatesRequest) (*types.QueryCandidatesResponse, error) {
	if req == nil {
		return nil, status.Error(codes.InvalidArgument, "empty request")
	}
	limit := req.Limit
	if limit == 0 {
		limit = 20
	}
	if limit > MaxCandidatesLimit {
		return nil, status.Errorf(codes.InvalidArgument, "limit %d: at most %d", limit, MaxCandidatesLimit)
	}
	cq := types.CandidateQuery{
		Lane: req.Lane, Models: req.Models, MaxPrice: req.MaxPrice, MinMemoryMiB: req.MinMemoryMib,
		Regions: req.Regions, Workload: req.Workload, ImageDigest: req.ImageDigest, GPUCount: req.GpuCount,
		AllowSplit: req.AllowSplit, DurationSeconds: req.DurationSeconds, Image: req.Image,
		MinCPUCoresPerGPU: req.MinCpuCoresPerGpu, MinMemoryMiBPerGPU: req.MinHostMemoryMibPerGpu,
		MinDiskGiBPerGPU: req.MinDiskGibPerGpu, MinEgressMbpsPerGPU: req.MinEgressMbpsPerGpu,
		IngressPort: req.IngressPort,
		// A query may look further than a block would, but not forever.
		MaxScan: 100 * MaxCandidatesLimit,
	}
	var out []types.CandidateInfo
	work := newWorkCache(q.Keeper)
	scanned, err := q.WalkCandidates(ctx, cq, func(c types.Candidate) (bool, error) {
		if can, err := work.of(ctx, c.Offer.Provider); err != nil || !can {
			return err != nil, err
		}
		out = append(out, types.CandidateInfo{
			OfferId: c.Offer.Id, Provider: c.Offer.Provider, Model: c.Offer.Model, Region: c.Offer.Region,
			Price: c.Price, FreeGpuUuids: c.FreeGPUs,
		})
		return uint32(len(out)) >= limit, nil
	})
	if err != nil {
		if errors.Is(err, types.ErrInvalidQuery) {
			return nil, status.Error(codes.InvalidArgument, err.Error())
		}
		return nil, status.Error(codes.Internal, err.Error())
	}
	return &types.QueryCandidatesResponse{Candidates: out, Scanned: scanned}, nil
}

// FillRate returns a provider's offered and leased GPU-seconds to now, and
// whether it can take new work (Keeper.FillRate).
func (q querier) FillRate(ctx context.Context, req *types.QueryFillRateRequest) (*types.QueryFillRateResponse, error) {
	if req == nil {
		return nil, status.Error(codes.InvalidArgument, "empty request")
	}
	addr, err := q.addressCodec.StringToBytes(req.Provider)
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "provider %q: %s", req.Provider, err)
	}
	st, bps, can, err := q.fillRate(ctx, addr)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return &types.QueryFillRateResponse{Stats: st, FillRateBps: bps, ProviderCanTakeWork: can}, nil
}

// grpcErr maps not-found errors to codes.NotFound so clients can tell them apart.
func grpcErr(err error) error {
	if errors.Is(err, types.ErrOfferNotFound) {
		return status.Error(codes.NotFound, err.Error())
	}
	return status.Error(codes.Internal, err.Error())
}
