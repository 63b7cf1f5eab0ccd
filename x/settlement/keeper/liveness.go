package keeper

import (
	"context"
	"fmt"
	"time"

	"cosmossdk.io/collections"

	sdk "github.com/cosmos/cosmos-sdk/types"

	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/internal/duequeue"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// leaseModels is the distinct models of a lease's GPUs.
func (k Keeper) leaseModels(ctx context.Context, l auctiontypes.Lease) ([]string, error) {
	var models []string
	for _, u := range l.GpuUuids {
		g, err := k.providers.GPU(ctx, u)
		if err != nil {
			return nil, err
		}
		models = append(models, g.Model)
	}
	return models, nil
}

// schedule puts prog's next epoch in the liveness index, due at its window
// end + grace moved by the time the chain lost since the window began, and in the window
// index that keeps its challenge headers; then saves prog. Past the last
// epoch nothing is due.
func (k Keeper) schedule(ctx context.Context, start time.Time, prog *types.LeaseProgress) error {
	from, to, ok := prog.Window(start, prog.NextEpoch)
	if !ok {
		prog.NextDue = time.Time{}
		return k.Progress.Set(ctx, prog.LeaseId, *prog)
	}
	due, err := k.lostMovedFrom(ctx, from, to.Add(prog.Grace()))
	if err != nil {
		return err
	}
	prog.NextDue = due
	if err := k.Due.Set(ctx, collections.Join(due, prog.LeaseId)); err != nil {
		return err
	}
	if err := k.Windows.Set(ctx, collections.Join(from, prog.LeaseId)); err != nil {
		return err
	}
	return k.Progress.Set(ctx, prog.LeaseId, *prog)
}

// unschedule takes prog out of the liveness and window indexes (call it
// before changing next_epoch or the duration).
func (k Keeper) unschedule(ctx context.Context, start time.Time, prog *types.LeaseProgress) error {
	if prog.NextDue.IsZero() {
		return nil
	}
	if err := k.Due.Remove(ctx, collections.Join(prog.NextDue, prog.LeaseId)); err != nil {
		return err
	}
	if from, _, ok := prog.Window(start, prog.NextEpoch); ok {
		if err := k.Windows.Remove(ctx, collections.Join(from, prog.LeaseId)); err != nil {
			return err
		}
	}
	prog.NextDue = time.Time{}
	return nil
}

// settleOverdue settles the epochs whose proof is overdue, oldest first, at
// most limit (max_misses_per_block): each is moved on, excused or missed
// (overdue).
func (k Keeper) settleOverdue(ctx context.Context, limit uint32) error {
	now := sdk.UnwrapSDKContext(ctx).BlockTime()
	it, err := k.Due.Iterate(ctx, nil)
	if err != nil {
		return err
	}
	due, err := duequeue.Take(it, limit, func(key collections.Pair[time.Time, uint64]) bool { return !key.K1().After(now) })
	if err != nil {
		return err
	}
	for _, key := range due {
		if err := k.overdue(ctx, key.K2()); err != nil {
			return fmt.Errorf("lease %d: %w", key.K2(), err)
		}
	}
	return nil
}

// overdue settles a lease's next epoch whose due time has come without a
// proof: moved on if time the chain lost since its window began pushes the
// due time later; excused if no proof of it could exist; missed otherwise.
func (k Keeper) overdue(ctx context.Context, leaseID uint64) error {
	prog, err := k.Progress.Get(ctx, leaseID)
	if err != nil {
		return err
	}
	lease, err := k.auction.Lease(ctx, leaseID)
	if err != nil {
		return err
	}
	if err := k.unschedule(ctx, lease.Start, &prog); err != nil {
		return err
	}
	if !settling(lease) {
		return k.Progress.Set(ctx, leaseID, prog) // ended without the hook: just stop watching
	}
	from, to, _ := prog.Window(lease.Start, prog.NextEpoch)
	due, err := k.lostMovedFrom(ctx, from, to.Add(prog.Grace()))
	if err != nil {
		return err
	}
	if due.After(sdk.UnwrapSDKContext(ctx).BlockTime()) {
		return k.schedule(ctx, lease.Start, &prog) // lost time moved it
	}
	reason, err := k.unprovable(ctx, prog, from, to)
	if err != nil {
		return err
	}
	if reason == "" && cutByProvider(lease, prog, from, to) {
		reason = "cut short by the provider's own stop: unpaid, and not a miss"
	}
	if reason != "" {
		return k.excuse(ctx, lease, prog, reason)
	}
	return k.miss(ctx, lease, prog)
}

// cutByProvider reports whether [from, to] is the last epoch of a lease its
// provider stopped (a close or a BRONZE preemption), cut short by the stop.
// Left unproven it goes unpaid but is not a miss: the stop already costs
// what it costs (a refusal, or nothing for a preemption), and an agent that
// kills the job at the stop should not pay twice for the same act
// (docs/design.md#failure-costs-and-fees). Epochs that ended before the
// stop are judged as ever.
func cutByProvider(l auctiontypes.Lease, prog types.LeaseProgress, from, to time.Time) bool {
	return l.Status == auctiontypes.LEASE_STATUS_CLOSING && l.ClosedByProvider &&
		prog.NextEpoch+1 == prog.Epochs() && to.Sub(from) < time.Duration(prog.EpochSeconds)*time.Second
}

// settling reports whether a lease's epochs are still being settled.
func settling(l auctiontypes.Lease) bool {
	return l.Status == auctiontypes.LEASE_STATUS_ACTIVE || l.Status == auctiontypes.LEASE_STATUS_CLOSING
}

// miss declares a lease's next epoch missed (docs/design.md#failure-costs-and-fees):
// a full reliability step whatever the epoch would have paid, never less
// than a provider's close costs; max_missed_epochs misses among the lease's
// last miss_window_epochs settled epochs (in a row or not) fail the lease
// (the renter gets the unpaid rest) and slash and jail the provider.
func (k Keeper) miss(ctx context.Context, lease auctiontypes.Lease, prog types.LeaseProgress) error {
	provider, err := k.addressCodec.StringToBytes(lease.Provider)
	if err != nil {
		return err
	}
	if err := k.providers.RecordEpoch(ctx, provider, false); err != nil {
		return err
	}
	missed := prog.NextEpoch
	prog.NextEpoch++
	prog.MissedEpochs++
	prog.Settled(true, false)
	if err := sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(&types.EventEpochMissed{
		LeaseId: lease.Id, Epoch: missed, Provider: lease.Provider, MissedInRow: prog.MissedInRow,
	}); err != nil {
		return err
	}
	if prog.MissesFail() {
		if err := k.Progress.Set(ctx, lease.Id, prog); err != nil {
			return err
		}
		reason := fmt.Sprintf("%d of the last %d epochs without a proof", prog.MissesInWindow(), prog.MissWindowEpochs)
		if err := k.auction.EndLease(ctx, lease.Id, auctiontypes.LEASE_STATUS_FAILED, reason); err != nil {
			return err
		}
		return k.providers.PunishLiveness(ctx, provider)
	}
	return k.advance(ctx, lease, prog)
}

// advance saves prog after an epoch was settled: the next one is scheduled,
// or, past the last, the lease ends — completed for a lease that ran its
// term (a completion in the provider's record only if no epoch was missed:
// LeaseProgress.Completion), its final status for a CLOSING one.
func (k Keeper) advance(ctx context.Context, lease auctiontypes.Lease, prog types.LeaseProgress) error {
	if prog.NextEpoch < prog.Epochs() {
		return k.schedule(ctx, lease.Start, &prog)
	}
	if err := k.Progress.Set(ctx, lease.Id, prog); err != nil {
		return err
	}
	return k.auction.EndSettledLease(ctx, lease.Id, settledRecord(prog))
}

// settledRecord is what a lease whose last epoch is settled records for its
// provider: a completion, a failure (an epoch missed), or nothing (no epoch
// proven or missed: every one excused).
func settledRecord(prog types.LeaseProgress) auctiontypes.SettledRecord {
	switch {
	case prog.MissedEpochs > 0:
		return auctiontypes.SETTLED_MISSED
	case prog.Completion():
		return auctiontypes.SETTLED_COMPLETED
	}
	return auctiontypes.SETTLED_EXCUSED
}
