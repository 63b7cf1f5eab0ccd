package keeper

import (
	"context"

	errorsmod "cosmossdk.io/errors"

	"github.com/idlegpu/idlegpu/x/offer/types"
)

type gpuHolds struct{ h types.GPUHolds }

// SetGPUHolds installs what holds GPUs out of the market (x/settlement's
// audits); once, at wiring.
func (k Keeper) SetGPUHolds(h types.GPUHolds) {
	if k.holds.h != nil {
		panic("x/offer GPU holds set twice")
	}
	k.holds.h = h
}

// GPUHeld reports whether x/settlement holds a GPU out of new offers (false
// when nothing holds GPUs, as in x/offer's own tests).
func (k Keeper) GPUHeld(ctx context.Context, uuid string) (bool, error) {
	if k.holds.h == nil {
		return false, nil
	}
	return k.holds.h.GPUHeld(ctx, uuid)
}

// checkNotHeld refuses GPUs held out of the market: a GPU under audit or
// without a valid audit pass may not enter an offer (one in an offer is
// held there, marked occupied).
func (k Keeper) checkNotHeld(ctx context.Context, uuids []string) error {
	if k.holds.h == nil {
		return nil
	}
	for _, u := range uuids {
		held, err := k.GPUHeld(ctx, u)
		if err != nil {
			return err
		}
		if held {
			return errorsmod.Wrapf(types.ErrGPUHeld, "%s is under audit or has no valid audit pass (x/settlement GPUVerification)", u)
		}
	}
	return nil
}

// unreserved drops from uuids the GPUs a hold keeps occupied in an open or
// paused offer: ending a lease on one must not give it back to the market
// (x/settlement frees it at the hold's end).
func (k Keeper) unreserved(ctx context.Context, o types.Offer, uuids []string) ([]string, error) {
	if k.holds.h == nil || o.Status == types.OFFER_STATUS_CLOSED {
		return uuids, nil
	}
	out := make([]string, 0, len(uuids))
	for _, u := range uuids {
		reserved, err := k.holds.h.GPUReserved(ctx, u)
		if err != nil {
			return nil, err
		}
		if !reserved {
			out = append(out, u)
		}
	}
	return out, nil
}
