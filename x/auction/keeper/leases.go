package keeper

import (
	"context"
	"time"

	"cosmossdk.io/collections"
	errorsmod "cosmossdk.io/errors"
	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/auction/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

// live reports whether a lease has not ended.
func live(l types.Lease) bool {
	return l.Status == types.LEASE_STATUS_PENDING || l.Status == types.LEASE_STATUS_ACTIVE
}

// PayLease pays a lease what it has earned up to until (clamped to its
// start and end): floor(price × gpus × elapsed / 3600) − paid, from escrow
// to the payee module (x/settlement credits the provider). Cumulative, so
// rounding never drifts and the last payment settles to the unit. Returns
// the payment (zero when nothing new is due).
func (k Keeper) PayLease(ctx context.Context, leaseID uint64, until time.Time) (sdk.Coin, error) {
	pay, err := k.AccrueLease(ctx, leaseID, until)
	if err != nil {
		return sdk.Coin{}, err
	}
	return pay, k.ReleaseEscrow(ctx, sdk.NewCoins(pay))
}

// AccrueLease is PayLease without the transfer: the lease is marked paid up
// to until and the payment is returned, still in escrow. A caller settling
// many leases in one message accrues each and moves the sum with one
// ReleaseEscrow (one bank transfer and its events instead of one per
// lease); it must release exactly what it accrued, in the same message.
func (k Keeper) AccrueLease(ctx context.Context, leaseID uint64, until time.Time) (sdk.Coin, error) {
	l, err := k.Lease(ctx, leaseID)
	if err != nil {
		return sdk.Coin{}, err
	}
	if l.Status != types.LEASE_STATUS_ACTIVE {
		return sdk.Coin{}, errorsmod.Wrapf(types.ErrInvalidLeaseState, "lease %d is %s", leaseID, l.Status)
	}
	due := types.Due(l.Price, uint32(len(l.GpuUuids)), elapsedSeconds(l, until))
	pay := due.Sub(l.Paid)
	if !pay.IsPositive() {
		return sdk.NewCoin(l.Price.Denom, sdkmath.ZeroInt()), nil
	}
	l.Paid = due
	if err := k.Leases.Set(ctx, l.Id, l); err != nil {
		return sdk.Coin{}, err
	}
	return pay, sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(&types.EventLeasePaid{LeaseId: l.Id, Amount: pay, Paid: due})
}

// ReleaseEscrow moves accrued lease payments from escrow to the payee.
func (k Keeper) ReleaseEscrow(ctx context.Context, amt sdk.Coins) error {
	if amt.IsZero() {
		return nil
	}
	return k.bank.SendCoinsFromModuleToModule(ctx, types.EscrowAccount, k.payee, amt)
}

// elapsedSeconds is the whole seconds of l's run up to until, within [0, duration].
func elapsedSeconds(l types.Lease, until time.Time) uint64 {
	if !until.After(l.Start) {
		return 0
	}
	return min(uint64(until.Sub(l.Start)/time.Second), l.DurationSeconds)
}

// EndLease ends a live lease with status (COMPLETED, CLOSED, PREEMPTED,
// FAILED or SLASHED): its GPUs are freed in x/offer, the unpaid rest of its
// escrow goes back to the renter, and the outcome is recorded in x/provider
// (COMPLETED, FAILED/SLASHED as failed, PREEMPTED; CLOSED records nothing —
// the caller decides whether a close was the provider's failure). The job
// ends with its last lease.
func (k Keeper) EndLease(ctx context.Context, leaseID uint64, status types.LeaseStatus, reason string) error {
	l, err := k.Lease(ctx, leaseID)
	if err != nil {
		return err
	}
	if !live(l) {
		return errorsmod.Wrapf(types.ErrInvalidLeaseState, "lease %d already ended (%s)", leaseID, l.Status)
	}
	var outcome providertypes.LeaseOutcome
	switch status {
	case types.LEASE_STATUS_COMPLETED:
		outcome = providertypes.LEASE_OUTCOME_COMPLETED
	case types.LEASE_STATUS_FAILED, types.LEASE_STATUS_SLASHED:
		outcome = providertypes.LEASE_OUTCOME_FAILED
	case types.LEASE_STATUS_PREEMPTED:
		outcome = providertypes.LEASE_OUTCOME_PREEMPTED
	case types.LEASE_STATUS_CLOSED:
	default:
		return errorsmod.Wrapf(types.ErrInvalidLeaseState, "cannot end a lease as %s", status)
	}
	if l.Status == types.LEASE_STATUS_PENDING {
		if err := k.StartQueue.Remove(ctx, collections.Join(l.StartDeadline, l.Id)); err != nil {
			return err
		}
	}
	if err := k.offers.FreeGPUs(ctx, l.OfferId, l.GpuUuids); err != nil {
		return err
	}
	if err := k.refund(ctx, l.JobId, l.Id, l.Renter, l.Escrow.Sub(l.Paid)); err != nil {
		return err
	}
	provider, err := k.storedAddress(l.Provider)
	if err != nil {
		return err
	}
	if err := k.LiveLeases.Remove(ctx, collections.Join(provider, l.Id)); err != nil {
		return err
	}
	if outcome != providertypes.LEASE_OUTCOME_UNSPECIFIED {
		if err := k.providers.RecordLeaseOutcome(ctx, provider, outcome); err != nil {
			return err
		}
	}
	l.Status, l.Reason = status, reason
	l.EndedAt = sdk.UnwrapSDKContext(ctx).BlockTime()
	if err := k.Leases.Set(ctx, l.Id, l); err != nil {
		return err
	}
	if err := k.leaseEnded(ctx, l); err != nil {
		return err
	}
	if err := k.afterLeaseEnded(ctx, l); err != nil {
		return err
	}
	return sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(&types.EventLeaseEnded{LeaseId: l.Id, Status: status, Reason: reason, Paid: l.Paid})
}

// leaseEnded counts the lease out of its job; the job ends with its last
// lease: FAILED if any lease failed, COMPLETED otherwise.
func (k Keeper) leaseEnded(ctx context.Context, l types.Lease) error {
	job, err := k.Job(ctx, l.JobId)
	if err != nil {
		return err
	}
	job.OpenLeases--
	if l.Status == types.LEASE_STATUS_FAILED || l.Status == types.LEASE_STATUS_SLASHED {
		job.Status = types.JOB_STATUS_FAILED
	}
	if job.OpenLeases == 0 && job.Status == types.JOB_STATUS_MATCHED {
		job.Status = types.JOB_STATUS_COMPLETED
	}
	return k.Jobs.Set(ctx, job.Id, job)
}

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

// CloseLease ends a live lease early for its renter or provider. What was
// paid stays paid; the rest is refunded. A provider closing a lease it
// promised not to take back (not BRONZE) counts as a failed lease.
func (m msgServer) CloseLease(ctx context.Context, msg *types.MsgCloseLease) (*types.MsgCloseLeaseResponse, error) {
	if err := types.ValidateReason(msg.Reason); err != nil {
		return nil, err
	}
	l, err := m.leaseFor(ctx, msg.Signer, msg.LeaseId, true)
	if err != nil {
		return nil, err
	}
	if !live(l) {
		return nil, errorsmod.Wrapf(types.ErrInvalidLeaseState, "lease %d is %s", l.Id, l.Status)
	}
	byProvider := msg.Signer != l.Renter
	if err := m.EndLease(ctx, l.Id, types.LEASE_STATUS_CLOSED, msg.Reason); err != nil {
		return nil, err
	}
	if byProvider {
		provider, err := m.storedAddress(l.Provider)
		if err != nil {
			return nil, err
		}
		outcome := providertypes.LEASE_OUTCOME_FAILED
		if l.Tier == types.TIER_BRONZE {
			outcome = providertypes.LEASE_OUTCOME_PREEMPTED
		}
		if err := m.providers.RecordLeaseOutcome(ctx, provider, outcome); err != nil {
			return nil, err
		}
	}
	return &types.MsgCloseLeaseResponse{}, nil
}

// PreemptLease lets a provider take back a BRONZE lease: no slash, counted
// as a preemption.
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
	if !live(l) {
		return nil, errorsmod.Wrapf(types.ErrInvalidLeaseState, "lease %d is %s", l.Id, l.Status)
	}
	return &types.MsgPreemptLeaseResponse{}, m.EndLease(ctx, l.Id, types.LEASE_STATUS_PREEMPTED, msg.Reason)
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

// EndProviderLeases ends every live lease of a provider with status (a
// fraud verdict: SLASHED). Bounded: each live lease holds at least one of
// the provider's GPUs. It returns how many it ended.
func (k Keeper) EndProviderLeases(ctx context.Context, provider sdk.AccAddress, status types.LeaseStatus, reason string) (int, error) {
	it, err := k.LiveLeases.Iterate(ctx, collections.NewPrefixedPairRange[sdk.AccAddress, uint64](provider))
	if err != nil {
		return 0, err
	}
	keys, err := it.Keys()
	if err != nil {
		return 0, err
	}
	for _, key := range keys {
		if err := k.EndLease(ctx, key.K2(), status, reason); err != nil {
			return 0, err
		}
	}
	return len(keys), nil
}
