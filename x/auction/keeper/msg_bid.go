package keeper

import (
	"context"

	"cosmossdk.io/collections"
	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/internal/eventjson"
)

// PlaceBid records (or replaces) a provider's bid on an OPEN job. The bid
// names one of the provider's offers that can serve the job now, at a price
// between that offer's floor on the job's lane and the job's max price.
func (m msgServer) PlaceBid(ctx context.Context, msg *types.MsgPlaceBid) (*types.MsgPlaceBidResponse, error) {
	provider, err := m.bidder(ctx, msg.Signer, msg.Provider)
	if err != nil {
		return nil, err
	}
	job, err := m.openJob(ctx, msg.JobId)
	if err != nil {
		return nil, err
	}
	if err := types.ValidatePrice(msg.Price); err != nil {
		return nil, err
	}
	spec := job.Spec
	if msg.Price.Denom != spec.MaxPrice.Denom {
		return nil, errorsmod.Wrapf(types.ErrDenomNotAccepted, "job %d pays in %s, bid is %s", job.Id, spec.MaxPrice.Denom, msg.Price)
	}
	if msg.Price.Amount.GT(spec.MaxPrice.Amount) {
		return nil, errorsmod.Wrapf(types.ErrBidTooHigh, "%s > max %s", msg.Price, spec.MaxPrice)
	}
	if msg.GpuCount == 0 || msg.GpuCount > spec.GpuCount || (!spec.AllowSplit && msg.GpuCount != spec.GpuCount) {
		return nil, errorsmod.Wrapf(types.ErrInvalidGPUCount, "bid of %d GPUs for a job of %d (split allowed: %t)", msg.GpuCount, spec.GpuCount, spec.AllowSplit)
	}
	params, err := m.Params.Get(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := m.eligible(ctx, provider, spec.Tier, params); err != nil {
		return nil, err
	}
	q := spec.CandidateQuery(params)
	q.GPUCount = msg.GpuCount
	q.AllowSplit = false // the offer must have the GPUs the bid names
	c, fits, err := m.offers.Fit(ctx, msg.OfferId, q)
	if err != nil {
		return nil, err
	}
	if !fits || c.Offer.Provider != msg.Provider {
		return nil, errorsmod.Wrapf(types.ErrOfferUnfit, "offer %d cannot serve job %d for %s", msg.OfferId, job.Id, msg.Provider)
	}
	if msg.Price.Amount.LT(c.Price.Amount) {
		return nil, errorsmod.Wrapf(types.ErrBidBelowFloor, "%s < offer %d's %s on %s", msg.Price, msg.OfferId, c.Price, q.Lane)
	}

	key := collections.Join(job.Id, provider)
	replacing, err := m.Bids.Has(ctx, key)
	if err != nil {
		return nil, err
	}
	if !replacing {
		if job.Bids >= params.MaxBidsPerJob {
			return nil, errorsmod.Wrapf(types.ErrTooManyBids, "job %d has %d bids", job.Id, job.Bids)
		}
		job.Bids++
		if err := m.Jobs.Set(ctx, job.Id, job); err != nil {
			return nil, err
		}
	}
	seq, err := m.BidSeq.Next(ctx)
	if err != nil {
		return nil, err
	}
	bid := types.Bid{JobId: job.Id, Provider: msg.Provider, OfferId: msg.OfferId, Price: msg.Price, GpuCount: msg.GpuCount, Seq: seq}
	if err := m.Bids.Set(ctx, key, bid); err != nil {
		return nil, err
	}
	return &types.MsgPlaceBidResponse{}, eventjson.Emit(ctx, &types.EventBidPlaced{Bid: bid})
}

// WithdrawBid removes a provider's bid from an OPEN job.
func (m msgServer) WithdrawBid(ctx context.Context, msg *types.MsgWithdrawBid) (*types.MsgWithdrawBidResponse, error) {
	provider, err := m.bidder(ctx, msg.Signer, msg.Provider)
	if err != nil {
		return nil, err
	}
	job, err := m.openJob(ctx, msg.JobId)
	if err != nil {
		return nil, err
	}
	key := collections.Join(msg.JobId, provider)
	if has, err := m.Bids.Has(ctx, key); err != nil || !has {
		return nil, errorsmod.Wrapf(types.ErrBidNotFound, "%s on job %d", msg.Provider, msg.JobId)
	}
	if err := m.Bids.Remove(ctx, key); err != nil {
		return nil, err
	}
	job.Bids--
	if err := m.Jobs.Set(ctx, job.Id, job); err != nil {
		return nil, err
	}
	return &types.MsgWithdrawBidResponse{}, sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(&types.EventBidWithdrawn{JobId: msg.JobId, Provider: msg.Provider})
}

// bidder resolves (signer, provider) of a bid message: both valid
// addresses, the signer the provider's operator or one of its agents.
func (k Keeper) bidder(ctx context.Context, signerStr, providerStr string) (sdk.AccAddress, error) {
	signer, err := k.address("signer", signerStr)
	if err != nil {
		return nil, err
	}
	provider, err := k.address("provider", providerStr)
	if err != nil {
		return nil, err
	}
	ok, err := k.providers.IsAuthorized(ctx, provider, signer)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errorsmod.Wrapf(types.ErrUnauthorized, "%s may not act for %s", signerStr, providerStr)
	}
	return provider, nil
}

// openJob loads a job that still takes bids: OPEN and its deadline not past.
func (k Keeper) openJob(ctx context.Context, id uint64) (types.Job, error) {
	job, err := k.Job(ctx, id)
	if err != nil {
		return job, err
	}
	if job.Status != types.JOB_STATUS_OPEN {
		return job, errorsmod.Wrapf(types.ErrJobNotOpen, "job %d is %s", id, job.Status)
	}
	if h := sdk.UnwrapSDKContext(ctx).BlockHeight(); h > job.BidDeadline {
		return job, errorsmod.Wrapf(types.ErrBidDeadlinePassed, "job %d cleared at height %d", id, job.BidDeadline)
	}
	return job, nil
}
