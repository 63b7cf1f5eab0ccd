package keeper

import (
	"context"
	"errors"
	"slices"
	"time"

	"cosmossdk.io/collections"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/internal/duequeue"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// Holds keep a GPU out of the market while it is under audit or without a
// valid pass (docs/design.md#audits, "Held stays held"): the GPU is
// occupied in its open or paused offer, x/offer leaves it occupied when a
// lease on it ends (GPUReserved), and no new offer may take it (GPUHeld).

// hold takes a GPU out of the market; holding a held GPU does nothing.
func (k Keeper) hold(ctx context.Context, uuid string) error {
	switch has, err := k.Holds.Has(ctx, uuid); {
	case err != nil || has:
		return err
	}
	var offerID uint64
	o, found, err := k.offers.OfferOfGPU(ctx, uuid)
	if err != nil {
		return err
	}
	if found && o.Status != offertypes.OFFER_STATUS_CLOSED {
		offerID = o.Id
		if !slices.Contains(o.OccupiedGpuUuids, uuid) {
			if err := k.offers.OccupyForAudit(ctx, o.Id, []string{uuid}); err != nil {
				return err
			}
		}
		// Occupied by a lease: the hold keeps it occupied when the lease ends.
	}
	return k.Holds.Set(ctx, uuid, offerID)
}

// release gives a held GPU back to the market: freed in the offer its hold
// occupies it in, unless a lease holds it there now (its end frees it).
func (k Keeper) release(ctx context.Context, provider sdk.AccAddress, uuid string) error {
	offerID, err := k.Holds.Get(ctx, uuid)
	if errors.Is(err, collections.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := k.Holds.Remove(ctx, uuid); err != nil || offerID == 0 {
		return err
	}
	o, found, err := k.offers.OfferOfGPU(ctx, uuid)
	if err != nil || !found || o.Id != offerID || !slices.Contains(o.OccupiedGpuUuids, uuid) {
		return err
	}
	if _, leased, err := k.auction.RunningLeaseOfGPU(ctx, provider, uuid); err != nil || leased {
		return err
	}
	return k.offers.VacateGPUs(ctx, offerID, []string{uuid})
}

// GPUHeld reports whether no new offer may take a GPU (x/offer's
// GPUHolds): held, under audit, or without a pass valid now.
func (k Keeper) GPUHeld(ctx context.Context, uuid string) (bool, error) {
	if held, err := k.Holds.Has(ctx, uuid); err != nil || held {
		return held, err
	}
	if live, err := k.LiveAudit.Has(ctx, uuid); err != nil || live {
		return live, err
	}
	ok, err := k.verified(ctx, uuid, sdk.UnwrapSDKContext(ctx).BlockTime())
	return !ok, err
}

// GPUReserved reports whether a hold occupies the GPU in its offer
// (x/offer's GPUHolds).
func (k Keeper) GPUReserved(ctx context.Context, uuid string) (bool, error) {
	return k.Holds.Has(ctx, uuid)
}

// verification is a GPU's audit record (zero when never audited).
func (k Keeper) verification(ctx context.Context, uuid string) (types.GPUVerification, error) {
	v, err := k.Verifications.Get(ctx, uuid)
	if errors.Is(err, collections.ErrNotFound) {
		return types.GPUVerification{GpuUuid: uuid}, nil
	}
	return v, err
}

// verified reports whether a GPU's last pass still counts at now: not
// expired, and earned by the provider the GPU is registered to now (a
// UUID another provider registers after its owner let it go starts
// without a pass).
func (k Keeper) verified(ctx context.Context, uuid string, now time.Time) (bool, error) {
	v, err := k.verification(ctx, uuid)
	if err != nil || !v.VerifiedUntil.After(now) {
		return false, err
	}
	g, err := k.providers.GPU(ctx, uuid)
	if err != nil {
		return false, nil // not registered: nothing to verify
	}
	return g.Provider == v.Provider, nil
}

// setVerification stores a record and keeps its expiry entry in step.
func (k Keeper) setVerification(ctx context.Context, before, after types.GPUVerification) error {
	if !before.VerifiedUntil.IsZero() {
		if err := k.Expiry.Remove(ctx, collections.Join(before.VerifiedUntil, before.GpuUuid)); err != nil {
			return err
		}
	}
	if !after.VerifiedUntil.IsZero() {
		if err := k.Expiry.Set(ctx, collections.Join(after.VerifiedUntil, after.GpuUuid)); err != nil {
			return err
		}
	}
	return k.Verifications.Set(ctx, after.GpuUuid, after)
}

// expirePasses holds, oldest first and at most limit, the GPUs whose pass
// stopped counting: they take no new lease until they pass again (a lease
// running on one goes on; the hold waits for its end).
func (k Keeper) expirePasses(ctx context.Context, limit uint32) error {
	now := sdk.UnwrapSDKContext(ctx).BlockTime()
	it, err := k.Expiry.Iterate(ctx, nil)
	if err != nil {
		return err
	}
	due, err := duequeue.Take(it, limit, func(key collections.Pair[time.Time, string]) bool { return !key.K1().After(now) })
	if err != nil {
		return err
	}
	for _, key := range due {
		if err := k.Expiry.Remove(ctx, key); err != nil {
			return err
		}
		if _, err := k.providers.GPU(ctx, key.K2()); err != nil {
			continue // deregistered since: nothing to hold
		}
		if err := k.hold(ctx, key.K2()); err != nil {
			return err
		}
	}
	return nil
}

// GrantPass gives a GPU a pass until until without an audit, as the
// upgrade to memwalk audits does for every GPU registered before it (one
// audit_validity of grace to pass its first audit; random audits may pick
// it sooner). A GPU with a later pass keeps it.
func (k Keeper) GrantPass(ctx context.Context, uuid string, until time.Time) error {
	before, err := k.verification(ctx, uuid)
	if err != nil || !before.VerifiedUntil.Before(until) {
		return err
	}
	g, err := k.providers.GPU(ctx, uuid)
	if err != nil {
		return err
	}
	after := before
	after.VerifiedUntil, after.Provider = until, g.Provider
	return k.setVerification(ctx, before, after)
}
