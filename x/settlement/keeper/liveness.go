package keeper

import (
	"context"
	"errors"
	"fmt"
	"time"

	"cosmossdk.io/collections"

	sdk "github.com/cosmos/cosmos-sdk/types"

	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// Hooks returns x/settlement's lease hooks for x/auction.
func (k Keeper) Hooks() auctiontypes.LeaseHooks { return hooks{k} }

type hooks struct{ k Keeper }

// AfterLeaseStarted starts the lease's epoch clock: its epoch length is
// fixed now, and epoch 0 falls due at its window's end + proof_grace.
func (h hooks) AfterLeaseStarted(ctx context.Context, l auctiontypes.Lease) error {
	params, err := h.k.Params.Get(ctx)
	if err != nil {
		return err
	}
	prog := types.LeaseProgress{LeaseId: l.Id, EpochSeconds: params.EpochSeconds}
	return h.k.schedule(ctx, l, &prog, params)
}

// AfterLeaseEnded stops watching the lease (closed, preempted, failed or
// completed): nothing more falls due.
func (h hooks) AfterLeaseEnded(ctx context.Context, l auctiontypes.Lease) error {
	prog, err := h.k.Progress.Get(ctx, l.Id)
	if errors.Is(err, collections.ErrNotFound) {
		return nil // a lease that never started has no clock
	}
	if err != nil {
		return err
	}
	if err := h.k.unschedule(ctx, &prog); err != nil {
		return err
	}
	return h.k.Progress.Set(ctx, l.Id, prog)
}

// schedule sets prog's next due time (next_epoch's window end + grace) in
// the liveness index and saves prog; past the last epoch nothing is due.
func (k Keeper) schedule(ctx context.Context, l auctiontypes.Lease, prog *types.LeaseProgress, params types.Params) error {
	if _, to, ok := types.EpochWindow(l.Start, l.DurationSeconds, prog.EpochSeconds, prog.NextEpoch); ok {
		prog.NextDue = to.Add(params.ProofGrace())
		if err := k.Due.Set(ctx, collections.Join(prog.NextDue, prog.LeaseId)); err != nil {
			return err
		}
	} else {
		prog.NextDue = time.Time{}
	}
	return k.Progress.Set(ctx, prog.LeaseId, *prog)
}

// unschedule takes prog out of the liveness index.
func (k Keeper) unschedule(ctx context.Context, prog *types.LeaseProgress) error {
	if prog.NextDue.IsZero() {
		return nil
	}
	if err := k.Due.Remove(ctx, collections.Join(prog.NextDue, prog.LeaseId)); err != nil {
		return err
	}
	prog.NextDue = time.Time{}
	return nil
}

// EndBlocker drops proof records past their retention (at most
// max_prunes_per_block), runs due audit steps (timeouts, reveal expiries,
// pruning; at most max_misses_per_block) and declares overdue epochs missed,
// oldest first, at most max_misses_per_block.
func (k Keeper) EndBlocker(ctx context.Context) error {
	params, err := k.Params.Get(ctx)
	if err != nil {
		return err
	}
	if err := k.pruneProofs(ctx, params.MaxPrunesPerBlock); err != nil {
		return err
	}
	if err := k.stepAudits(ctx, params, params.MaxMissesPerBlock); err != nil {
		return err
	}
	now := sdk.UnwrapSDKContext(ctx).BlockTime()
	rng := new(collections.Range[collections.Pair[time.Time, uint64]]).EndExclusive(collections.Join(now.Add(time.Nanosecond), uint64(0)))
	it, err := k.Due.Iterate(ctx, rng)
	if err != nil {
		return err
	}
	var due []uint64
	for ; it.Valid() && uint32(len(due)) < params.MaxMissesPerBlock; it.Next() {
		key, err := it.Key()
		if err != nil {
			it.Close()
			return err
		}
		due = append(due, key.K2())
	}
	it.Close()
	for _, id := range due {
		if err := k.miss(ctx, id, params); err != nil {
			return fmt.Errorf("lease %d: %w", id, err)
		}
	}
	return nil
}

// miss declares a lease's next epoch missed: the provider's reputation
// records it; max_missed_epochs in a row fail the lease (the renter gets
// the unpaid rest) and slash and jail the provider; a missed last epoch
// ends the lease as completed (what was proven stays paid).
func (k Keeper) miss(ctx context.Context, leaseID uint64, params types.Params) error {
	prog, err := k.Progress.Get(ctx, leaseID)
	if err != nil {
		return err
	}
	lease, err := k.auction.Lease(ctx, leaseID)
	if err != nil {
		return err
	}
	if err := k.unschedule(ctx, &prog); err != nil {
		return err
	}
	provider, err := k.addressCodec.StringToBytes(lease.Provider)
	if err != nil {
		return err
	}
	if lease.Status != auctiontypes.LEASE_STATUS_ACTIVE {
		return k.Progress.Set(ctx, leaseID, prog) // ended without the hook: just stop watching
	}
	if err := k.providers.RecordEpoch(ctx, provider, false); err != nil {
		return err
	}
	missed := prog.NextEpoch
	prog.NextEpoch++
	prog.MissedEpochs++
	prog.MissedInRow++
	if err := sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(&types.EventEpochMissed{
		LeaseId: leaseID, Epoch: missed, Provider: lease.Provider, MissedInRow: prog.MissedInRow,
	}); err != nil {
		return err
	}
	switch {
	case prog.MissedInRow >= params.MaxMissedEpochs:
		if err := k.Progress.Set(ctx, leaseID, prog); err != nil {
			return err
		}
		reason := fmt.Sprintf("%d epochs in a row without a proof", prog.MissedInRow)
		if err := k.auction.EndLease(ctx, leaseID, auctiontypes.LEASE_STATUS_FAILED, reason); err != nil {
			return err
		}
		return k.providers.PunishLiveness(ctx, provider)
	case prog.NextEpoch == types.EpochCount(lease.DurationSeconds, prog.EpochSeconds):
		if err := k.Progress.Set(ctx, leaseID, prog); err != nil {
			return err
		}
		return k.auction.EndLease(ctx, leaseID, auctiontypes.LEASE_STATUS_COMPLETED, "last epoch missed")
	default:
		return k.schedule(ctx, lease, &prog, params)
	}
}
