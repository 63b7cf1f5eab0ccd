package keeper

import (
	"context"
	"errors"
	"slices"

	"cosmossdk.io/collections"
	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/internal/eventjson"
	"github.com/idlegpu/idlegpu/x/offer/types"
)

// A GPU of an offer is free or occupied: held out of the market by a lease
// (OccupyForLease) or an audit (OccupyForAudit) until VacateGPUs gives it
// back. Occupied GPUs are the offer's occupied_gpu_uuids.

// OccupyForLease occupies GPUs of an OPEN offer for a new lease (x/auction
// calls it at clearing). All-or-nothing: every UUID must be the offer's,
// listed once and free.
func (k Keeper) OccupyForLease(ctx context.Context, offerID uint64, uuids []string) error {
	before, err := k.Offer(ctx, offerID)
	if err != nil {
		return err
	}
	_, err = k.occupyForLease(ctx, before, uuids)
	return err
}

// occupyForLease is OccupyForLease on the offer as the store holds it,
// already read (a block's walks keep it); it returns the offer after.
func (k Keeper) occupyForLease(ctx context.Context, before types.Offer, uuids []string) (types.Offer, error) {
	if before.Status != types.OFFER_STATUS_OPEN {
		return types.Offer{}, errorsmod.Wrapf(types.ErrOfferNotOpen, "offer %d is %s", before.Id, before.Status)
	}
	return k.occupy(ctx, before, uuids, false)
}

// OccupyForAudit marks free GPUs of an OPEN or PAUSED offer occupied, as
// OccupyForLease does for a lease: an audit holds its GPU out of the market
// whatever the offer's state, so reopening the offer cannot match it.
// FreeGPUs gives them back.
func (k Keeper) OccupyForAudit(ctx context.Context, offerID uint64, uuids []string) error {
	before, err := k.Offer(ctx, offerID)
	if err != nil {
		return err
	}
	if before.Status != types.OFFER_STATUS_OPEN && before.Status != types.OFFER_STATUS_PAUSED {
		return errorsmod.Wrapf(types.ErrOfferNotOpen, "offer %d is %s", offerID, before.Status)
	}
	_, err = k.occupy(ctx, before, uuids, true)
	return err
}

// occupy marks free GPUs of the offer as occupied, by an audit or a lease,
// and returns the offer as stored after.
func (k Keeper) occupy(ctx context.Context, before types.Offer, uuids []string, audit bool) (types.Offer, error) {
	if err := checkGPUs(before, uuids, false); err != nil {
		return types.Offer{}, err
	}
	after := before
	after.OccupiedGpuUuids = inOfferOrder(before.GpuUuids, append(slices.Clone(before.OccupiedGpuUuids), uuids...))
	if err := k.saveOffer(ctx, &before, &after); err != nil {
		return types.Offer{}, err
	}
	return after, eventjson.Emit(ctx, &types.EventGPUsOccupied{OfferId: before.Id, GpuUuids: uuids, Audit: audit})
}

// VacateGPUs frees occupied GPUs of an offer (x/auction calls it when a
// lease ends, for any reason; x/settlement when a hold ends), except those
// an x/settlement hold still reserves in an open or paused offer. On a
// CLOSED offer the GPUs also leave the offer and are released in
// x/provider; the offer is removed with its last GPU.
func (k Keeper) VacateGPUs(ctx context.Context, offerID uint64, uuids []string) error {
	before, err := k.Offer(ctx, offerID)
	if err != nil {
		return err
	}
	if err := checkGPUs(before, uuids, true); err != nil {
		return err
	}
	if uuids, err = k.unreserved(ctx, before, uuids); err != nil || len(uuids) == 0 {
		return err
	}
	after := before
	after.OccupiedGpuUuids = without(before.OccupiedGpuUuids, uuids)
	em := sdk.UnwrapSDKContext(ctx).EventManager()
	if before.Status == types.OFFER_STATUS_CLOSED {
		provider, err := k.addressCodec.StringToBytes(before.Provider)
		if err != nil {
			return err
		}
		if err := k.providers.ReleaseGPUs(ctx, provider, uuids); err != nil {
			return err
		}
		after.GpuUuids = without(before.GpuUuids, uuids)
		if len(after.GpuUuids) == 0 {
			if err := k.saveOffer(ctx, &before, nil); err != nil {
				return err
			}
			if err := em.EmitTypedEvent(&types.EventGPUsFreed{OfferId: offerID, GpuUuids: uuids}); err != nil {
				return err
			}
			return em.EmitTypedEvent(&types.EventOfferRemoved{OfferId: offerID})
		}
	}
	if err := k.saveOffer(ctx, &before, &after); err != nil {
		return err
	}
	return em.EmitTypedEvent(&types.EventGPUsFreed{OfferId: offerID, GpuUuids: uuids})
}

// OfferOfGPU returns the offer holding a GPU, if one does (x/settlement asks
// before auditing it: a GPU in a lease may not be audited).
func (k Keeper) OfferOfGPU(ctx context.Context, uuid string) (types.Offer, bool, error) {
	id, err := k.GPUOffers.Get(ctx, uuid)
	if errors.Is(err, collections.ErrNotFound) {
		return types.Offer{}, false, nil
	}
	if err != nil {
		return types.Offer{}, false, err
	}
	o, err := k.Offer(ctx, id)
	return o, err == nil, err
}

// checkGPUs requires each UUID once, in the offer, and occupied or free as wantOccupied says.
func checkGPUs(o types.Offer, uuids []string, wantOccupied bool) error {
	if len(uuids) == 0 {
		return errorsmod.Wrap(types.ErrNoGPUs, "no GPUs named")
	}
	for i, u := range uuids {
		if slices.Contains(uuids[:i], u) {
			return errorsmod.Wrapf(types.ErrDuplicateGPU, "%s", u)
		}
		if !slices.Contains(o.GpuUuids, u) {
			return errorsmod.Wrapf(types.ErrGPUNotInOffer, "%s is not in offer %d", u, o.Id)
		}
		occupied := slices.Contains(o.OccupiedGpuUuids, u)
		if wantOccupied && !occupied {
			return errorsmod.Wrapf(types.ErrGPUNotOccupied, "%s in offer %d", u, o.Id)
		}
		if !wantOccupied && occupied {
			return errorsmod.Wrapf(types.ErrGPUOccupied, "%s in offer %d", u, o.Id)
		}
	}
	return nil
}

// inOfferOrder returns the members of set in the order of all.
func inOfferOrder(all, set []string) []string {
	out := make([]string, 0, len(set))
	for _, u := range all {
		if slices.Contains(set, u) {
			out = append(out, u)
		}
	}
	return nilIfEmpty(out)
}

// without returns list minus drop, order kept.
func without(list, drop []string) []string {
	out := make([]string, 0, len(list))
	for _, u := range list {
		if !slices.Contains(drop, u) {
			out = append(out, u)
		}
	}
	return nilIfEmpty(out)
}

// nilIfEmpty keeps an empty list as nil, as it reads back from the store.
func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}
