package keeper

import (
	"context"
	"errors"
	"time"

	"cosmossdk.io/collections"

	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// hooks are x/settlement's answers to x/auction's lease events: a lease's
// epoch clock starts, is cut short and stops with them.
type hooks struct{ k Keeper }

// Hooks returns x/settlement's lease hooks for x/auction.
func (k Keeper) Hooks() auctiontypes.LeaseHooks { return hooks{k} }

// AfterLeaseStarted starts the lease's epoch clock with the params that
// judge it snapshotted; epoch 0 falls due at its window's end + grace.
func (h hooks) AfterLeaseStarted(ctx context.Context, l auctiontypes.Lease) error {
	params, err := h.k.Params.Get(ctx)
	if err != nil {
		return err
	}
	models, err := h.k.leaseModels(ctx, l)
	if err != nil {
		return err
	}
	prog := types.NewLeaseProgress(l.Id, l.Start, l.DurationSeconds, models, params)
	return h.k.schedule(ctx, l.Start, &prog)
}

// AfterLeaseStopped stops a CLOSING lease's clock at its ended_at: its
// epochs end there (the last one cut short), and the provider may still
// prove those not yet settled. With nothing left to settle the lease ends
// at once.
func (h hooks) AfterLeaseStopped(ctx context.Context, l auctiontypes.Lease) error {
	prog, err := h.k.Progress.Get(ctx, l.Id)
	if err != nil {
		return err
	}
	if err := h.k.unschedule(ctx, l.Start, &prog); err != nil {
		return err
	}
	ran := uint64(0)
	if l.EndedAt.After(l.Start) {
		ran = uint64(l.EndedAt.Sub(l.Start) / time.Second)
	}
	prog.DurationSeconds = min(prog.DurationSeconds, ran)
	if prog.NextEpoch >= prog.Epochs() {
		if err := h.k.Progress.Set(ctx, l.Id, prog); err != nil {
			return err
		}
		return h.k.auction.EndSettledLease(ctx, l.Id, settledRecord(prog))
	}
	return h.k.schedule(ctx, l.Start, &prog)
}

// AfterLeaseEnded stops watching the lease: nothing more falls due.
func (h hooks) AfterLeaseEnded(ctx context.Context, l auctiontypes.Lease) error {
	prog, err := h.k.Progress.Get(ctx, l.Id)
	if errors.Is(err, collections.ErrNotFound) {
		return nil // a lease that never started has no clock
	}
	if err != nil {
		return err
	}
	if err := h.k.unschedule(ctx, l.Start, &prog); err != nil {
		return err
	}
	return h.k.Progress.Set(ctx, l.Id, prog)
}

// AfterLeasePruned drops the ended lease's progress with the lease
// (x/auction prunes both after record_retention_seconds). Its proof records
// stay until their own retention: a fraud report needs only the proof.
func (h hooks) AfterLeasePruned(ctx context.Context, l auctiontypes.Lease) error {
	return h.k.Progress.Remove(ctx, l.Id)
}
