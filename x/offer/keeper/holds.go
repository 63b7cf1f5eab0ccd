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

// checkNotHeld refuses GPUs held out of the market: an audited GPU in no
// offer may not enter one before its verdict (one in an offer is held
// there, marked occupied).
func (k Keeper) checkNotHeld(ctx context.Context, uuids []string) error {
	if k.holds.h == nil {
		return nil
	}
	for _, u := range uuids {
		held, err := k.holds.h.GPUHeld(ctx, u)
		if err != nil {
			return err
		}
		if held {
			return errorsmod.Wrapf(types.ErrGPUHeld, "%s is under audit until its verdict", u)
		}
	}
	return nil
}
