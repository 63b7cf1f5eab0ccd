package keeper

import (
	"context"
	"slices"

	"cosmossdk.io/collections"
	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/auction/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

// live reports whether a lease has not ended for good: it still holds
// escrow and counts in its job (PENDING, ACTIVE, or CLOSING while its
// ended epochs are settled).
func live(l types.Lease) bool {
	return running(l) || l.Status == types.LEASE_STATUS_CLOSING
}

// running reports whether a lease holds its GPUs and may still be ended
// early (PENDING or ACTIVE).
func running(l types.Lease) bool {
	return l.Status == types.LEASE_STATUS_PENDING || l.Status == types.LEASE_STATUS_ACTIVE
}

// EndLease ends a live lease for good with status (COMPLETED, CLOSED,
// PREEMPTED, EXPIRED, FAILED or SLASHED): its GPUs are freed in x/offer
// (a CLOSING lease's already are), the unpaid rest of its escrow goes back
// to the renter, and the outcome is recorded in x/provider (COMPLETED,
// FAILED/SLASHED as failed, PREEMPTED; CLOSED and EXPIRED record nothing
// here — the caller charges a provider's close or an unstarted expiry as a
// refusal: failure_cost.go). The job ends with its last lease.
func (k Keeper) EndLease(ctx context.Context, leaseID uint64, status types.LeaseStatus, reason string) error {
	outcome, ok := leaseOutcome(status)
	if !ok {
		return errorsmod.Wrapf(types.ErrInvalidLeaseState, "cannot end a lease as %s", status)
	}
	return k.endLease(ctx, leaseID, status, reason, outcome)
}

// leaseOutcome is what an ending records in the provider's reputation.
func leaseOutcome(status types.LeaseStatus) (providertypes.LeaseOutcome, bool) {
	switch status {
	case types.LEASE_STATUS_COMPLETED:
		return providertypes.LEASE_OUTCOME_COMPLETED, true
	case types.LEASE_STATUS_FAILED, types.LEASE_STATUS_SLASHED:
		return providertypes.LEASE_OUTCOME_FAILED, true
	case types.LEASE_STATUS_PREEMPTED:
		return providertypes.LEASE_OUTCOME_PREEMPTED, true
	case types.LEASE_STATUS_CLOSED, types.LEASE_STATUS_EXPIRED:
		return providertypes.LEASE_OUTCOME_UNSPECIFIED, true
	}
	return providertypes.LEASE_OUTCOME_UNSPECIFIED, false
}

// EndSettledLease ends a lease whose last epoch x/settlement has settled:
// a CLOSING lease takes its final status; a lease that ran its term is
// COMPLETED. What it records for the provider is settledOutcome's.
func (k Keeper) EndSettledLease(ctx context.Context, leaseID uint64, rec types.SettledRecord) error {
	l, err := k.Lease(ctx, leaseID)
	if err != nil {
		return err
	}
	status, reason := types.LEASE_STATUS_COMPLETED, settledReason(rec)
	if l.Status == types.LEASE_STATUS_CLOSING {
		status, reason = l.FinalStatus, l.Reason
	}
	return k.endLease(ctx, leaseID, status, reason, settledOutcome(l, rec))
}

func settledReason(rec types.SettledRecord) string {
	switch rec {
	case types.SETTLED_COMPLETED:
		return "every epoch settled"
	case types.SETTLED_MISSED:
		return "ran its term with missed epochs"
	}
	return "every epoch excused"
}

func (k Keeper) endLease(ctx context.Context, leaseID uint64, status types.LeaseStatus, reason string, outcome providertypes.LeaseOutcome) error {
	l, err := k.Lease(ctx, leaseID)
	if err != nil {
		return err
	}
	if !live(l) {
		return errorsmod.Wrapf(types.ErrInvalidLeaseState, "lease %d already ended (%s)", leaseID, l.Status)
	}
	if l.Status == types.LEASE_STATUS_PENDING {
		if err := k.StartQueue.Remove(ctx, collections.Join(l.StartDeadline, l.Id)); err != nil {
			return err
		}
	}
	if running(l) { // a CLOSING lease's GPUs were freed when it stopped
		if err := k.offers.VacateGPUs(ctx, l.OfferId, l.GpuUuids); err != nil {
			return err
		}
		l.EndedAt = sdk.UnwrapSDKContext(ctx).BlockTime()
	}
	if err := k.refundLease(ctx, l); err != nil {
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
	l.Status, l.Reason, l.FinalStatus = status, reason, types.LEASE_STATUS_UNSPECIFIED
	if err := k.Leases.Set(ctx, l.Id, l); err != nil {
		return err
	}
	jobStatus, err := k.leaseEnded(ctx, l)
	if err != nil {
		return err
	}
	if err := k.afterLeaseEnded(ctx, l); err != nil {
		return err
	}
	return sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(&types.EventLeaseEnded{
		LeaseId: l.Id, Status: status, Reason: reason, Paid: l.Paid, JobId: l.JobId, JobStatus: jobStatus,
	})
}

// stopLease ends a running lease early (x/auction/README.md, "Ending a lease early"):
// a PENDING one ends at once (nothing ran); an ACTIVE one becomes CLOSING —
// its clock stops now and its GPUs are freed at once, but its provider may
// still prove the epochs up to now within proof_grace, and it takes final
// only when x/settlement has settled them. Work that ran is always payable.
func (k Keeper) stopLease(ctx context.Context, l types.Lease, final types.LeaseStatus, reason string, byProvider bool) error {
	if !running(l) {
		return errorsmod.Wrapf(types.ErrInvalidLeaseState, "lease %d is %s", l.Id, l.Status)
	}
	l.ClosedByProvider = byProvider
	if l.Status == types.LEASE_STATUS_PENDING {
		if err := k.Leases.Set(ctx, l.Id, l); err != nil {
			return err
		}
		return k.EndLease(ctx, l.Id, final, reason)
	}
	if err := k.offers.VacateGPUs(ctx, l.OfferId, l.GpuUuids); err != nil {
		return err
	}
	l.Status, l.FinalStatus, l.Reason = types.LEASE_STATUS_CLOSING, final, reason
	l.EndedAt = sdk.UnwrapSDKContext(ctx).BlockTime()
	if err := k.Leases.Set(ctx, l.Id, l); err != nil {
		return err
	}
	if err := sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(&types.EventLeaseClosing{
		LeaseId: l.Id, FinalStatus: final, Reason: reason, EndedAt: l.EndedAt,
	}); err != nil {
		return err
	}
	return k.afterLeaseStopped(ctx, l) // may end it at once: nothing left to prove
}

// leaseEnded counts the lease out of its job; the job's status summarises
// how its leases ended (types.JobStatusAfter), final with its last lease,
// when it is retired for pruning. It returns the job's new status.
func (k Keeper) leaseEnded(ctx context.Context, l types.Lease) (types.JobStatus, error) {
	job, err := k.Job(ctx, l.JobId)
	if err != nil {
		return types.JOB_STATUS_UNSPECIFIED, err
	}
	job.OpenLeases--
	job.Status = types.JobStatusAfter(job.Status, l, job.OpenLeases == 0)
	if err := k.retire(ctx, &job); err != nil {
		return types.JOB_STATUS_UNSPECIFIED, err
	}
	return job.Status, k.Jobs.Set(ctx, job.Id, job)
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

// RunningLeaseOfGPU returns the provider's running (PENDING or ACTIVE)
// lease holding a GPU. Bounded: the provider's live leases each hold at
// least one of its GPUs.
func (k Keeper) RunningLeaseOfGPU(ctx context.Context, provider sdk.AccAddress, uuid string) (types.Lease, bool, error) {
	it, err := k.LiveLeases.Iterate(ctx, collections.NewPrefixedPairRange[sdk.AccAddress, uint64](provider))
	if err != nil {
		return types.Lease{}, false, err
	}
	keys, err := it.Keys()
	if err != nil {
		return types.Lease{}, false, err
	}
	for _, key := range keys {
		l, err := k.Lease(ctx, key.K2())
		if err != nil {
			return types.Lease{}, false, err
		}
		if running(l) && slices.Contains(l.GpuUuids, uuid) {
			return l, true, nil
		}
	}
	return types.Lease{}, false, nil
}
