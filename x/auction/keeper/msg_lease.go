package keeper

import (
	"context"

	"cosmossdk.io/collections"
	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/auction/types"
)

// StartLease moves a PENDING lease to ACTIVE: the provider's agent has the
// manifest and runs the job. Its clock, epochs and payments start now.
func (m msgServer) StartLease(ctx context.Context, msg *types.MsgStartLease) (*types.MsgStartLeaseResponse, error) {
	l, err := m.leaseFor(ctx, msg.Signer, msg.LeaseId, false)
	if err != nil {
		return nil, err
	}
	if l.Status != types.LEASE_STATUS_PENDING {
		return nil, errorsmod.Wrapf(types.ErrInvalidLeaseState, "lease %d is %s", l.Id, l.Status)
	}
	if err := m.StartQueue.Remove(ctx, collections.Join(l.StartDeadline, l.Id)); err != nil {
		return nil, err
	}
	l.Status = types.LEASE_STATUS_ACTIVE
	l.Start = sdk.UnwrapSDKContext(ctx).BlockTime()
	if err := m.Leases.Set(ctx, l.Id, l); err != nil {
		return nil, err
	}
	if err := m.afterLeaseStarted(ctx, l); err != nil {
		return nil, err
	}
	return &types.MsgStartLeaseResponse{}, sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(&types.EventLeaseStarted{LeaseId: l.Id, Provider: l.Provider})
}

// CloseLease ends a running lease early for its renter or provider
// (stopLease: what ran stays payable, the rest is refunded). A provider's
// close is a refusal (failure_cost.go: recordRefusal) — no slash, an
// honest exit is allowed.
func (m msgServer) CloseLease(ctx context.Context, msg *types.MsgCloseLease) (*types.MsgCloseLeaseResponse, error) {
	if err := types.ValidateReason(msg.Reason); err != nil {
		return nil, err
	}
	l, err := m.leaseFor(ctx, msg.Signer, msg.LeaseId, true)
	if err != nil {
		return nil, err
	}
	if !running(l) {
		return nil, errorsmod.Wrapf(types.ErrInvalidLeaseState, "lease %d is %s", l.Id, l.Status)
	}
	byProvider := msg.Signer != l.Renter
	if err := m.stopLease(ctx, l, types.LEASE_STATUS_CLOSED, msg.Reason, byProvider); err != nil {
		return nil, err
	}
	if byProvider {
		if err := m.recordRefusal(ctx, l); err != nil {
			return nil, err
		}
	}
	return &types.MsgCloseLeaseResponse{}, nil
}

// PreemptLease lets a provider take back a BRONZE lease: no slash, counted
// as a preemption; the time it ran stays payable.
func (m msgServer) PreemptLease(ctx context.Context, msg *types.MsgPreemptLease) (*types.MsgPreemptLeaseResponse, error) {
	if err := types.ValidateReason(msg.Reason); err != nil {
		return nil, err
	}
	l, err := m.leaseFor(ctx, msg.Signer, msg.LeaseId, false)
	if err != nil {
		return nil, err
	}
	if l.Tier != types.TIER_BRONZE {
		return nil, errorsmod.Wrapf(types.ErrNotPreemptible, "lease %d is %s", l.Id, l.Tier)
	}
	if !running(l) {
		return nil, errorsmod.Wrapf(types.ErrInvalidLeaseState, "lease %d is %s", l.Id, l.Status)
	}
	return &types.MsgPreemptLeaseResponse{}, m.stopLease(ctx, l, types.LEASE_STATUS_PREEMPTED, msg.Reason, true)
}

// leaseFor loads a lease the signer may act on: its provider's operator or
// agent, or (when renterToo) its renter.
func (k Keeper) leaseFor(ctx context.Context, signerStr string, id uint64, renterToo bool) (types.Lease, error) {
	signer, err := k.address("signer", signerStr)
	if err != nil {
		return types.Lease{}, err
	}
	l, err := k.Lease(ctx, id)
	if err != nil {
		return l, err
	}
	if renterToo && signerStr == l.Renter {
		return l, nil
	}
	ok, err := k.actsFor(ctx, signer, l.Provider)
	if err != nil {
		return l, err
	}
	if !ok {
		return l, errorsmod.Wrapf(types.ErrUnauthorized, "%s may not act on lease %d", signerStr, id)
	}
	return l, nil
}
