package keeper

import (
	"context"

	"cosmossdk.io/collections"
	errorsmod "cosmossdk.io/errors"
	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/auction/types"
)

// PostJob escrows the renter's deposit and queues the job for clearing at
// its bid deadline (this block's EndBlock when bid_window_blocks is 0).
func (m msgServer) PostJob(ctx context.Context, msg *types.MsgPostJob) (*types.MsgPostJobResponse, error) {
	renter, err := m.address("renter", msg.Renter)
	if err != nil {
		return nil, err
	}
	params, err := m.Params.Get(ctx)
	if err != nil {
		return nil, err
	}
	if err := msg.Spec.Validate(params); err != nil {
		return nil, err
	}
	ok, err := m.offers.AcceptsDenom(ctx, msg.Spec.MaxPrice.Denom)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errorsmod.Wrapf(types.ErrDenomNotAccepted, "%s", msg.Spec.MaxPrice.Denom)
	}
	deposit, err := m.deposit(ctx, renter, msg.Spec)
	if err != nil {
		return nil, err
	}

	id, err := m.JobSeq.Next(ctx)
	if err != nil {
		return nil, err
	}
	sdkCtx := sdk.UnwrapSDKContext(ctx)
	job := types.Job{
		Id: id, Renter: msg.Renter, Spec: msg.Spec, Deposit: deposit,
		BidDeadline: sdkCtx.BlockHeight() + int64(msg.Spec.BidWindowBlocks),
		Status:      types.JOB_STATUS_OPEN, CreatedAt: sdkCtx.BlockTime(),
		ClearingPrice: sdk.NewCoin(deposit.Denom, sdkmath.ZeroInt()),
	}
	if err := m.Jobs.Set(ctx, id, job); err != nil {
		return nil, err
	}
	if err := m.ClearingQueue.Set(ctx, clearingKey(job)); err != nil {
		return nil, err
	}
	if err := m.RenterJobs.Set(ctx, collections.Join(renter, id)); err != nil {
		return nil, err
	}
	if err := sdkCtx.EventManager().EmitTypedEvent(&types.EventJobPosted{Job: job}); err != nil {
		return nil, err
	}
	return &types.MsgPostJobResponse{JobId: id, Deposit: deposit}, nil
}

// CancelJob refunds an OPEN job in full; a cleared job's running leases
// are stopped (what ran stays payable, the rest is refunded), with no
// reputation effect.
func (m msgServer) CancelJob(ctx context.Context, msg *types.MsgCancelJob) (*types.MsgCancelJobResponse, error) {
	if _, err := m.address("renter", msg.Renter); err != nil {
		return nil, err
	}
	job, err := m.Job(ctx, msg.JobId)
	if err != nil {
		return nil, err
	}
	if job.Renter != msg.Renter {
		return nil, errorsmod.Wrapf(types.ErrUnauthorized, "job %d belongs to %s", job.Id, job.Renter)
	}
	switch {
	case job.Status == types.JOB_STATUS_OPEN:
		if err := m.ClearingQueue.Remove(ctx, clearingKey(job)); err != nil {
			return nil, err
		}
		if err := m.dropBids(ctx, &job); err != nil {
			return nil, err
		}
		if err := m.refund(ctx, job.Id, 0, job.Renter, job.Deposit); err != nil {
			return nil, err
		}
	case job.OpenLeases > 0:
		for _, id := range job.LeaseIds {
			l, err := m.Lease(ctx, id)
			if err != nil {
				return nil, err
			}
			if running(l) {
				if err := m.stopLease(ctx, l, types.LEASE_STATUS_CLOSED, "job cancelled by renter", false); err != nil {
					return nil, err
				}
			}
		}
		if job, err = m.Job(ctx, job.Id); err != nil {
			return nil, err
		}
	default:
		return nil, errorsmod.Wrapf(types.ErrJobNotOpen, "job %d is %s", job.Id, job.Status)
	}
	job.Status = types.CancelledStatus(job.Status)
	if err := m.retire(ctx, &job); err != nil {
		return nil, err
	}
	if err := m.Jobs.Set(ctx, job.Id, job); err != nil {
		return nil, err
	}
	return &types.MsgCancelJobResponse{}, sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(&types.EventJobCancelled{JobId: job.Id})
}

// clearingKey is the job's place in the clearing queue.
func clearingKey(job types.Job) collections.Pair[int64, uint64] {
	return collections.Join(job.BidDeadline, job.Id)
}
