package keeper

import (
	"context"
	"errors"
	"slices"

	"cosmossdk.io/collections"
	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/offer/types"
)

// LeaseGPUs marks GPUs of an OPEN offer as in a lease (x/auction calls it
// when a lease is made). All-or-nothing: every UUID must be the offer's,
// listed once and free.
func (k Keeper) LeaseGPUs(ctx context.Context, offerID uint64, uuids []string) error {
	before, err := k.Offer(ctx, offerID)
	if err != nil {
		return err
	}
	if before.Status != types.OFFER_STATUS_OPEN {
		return errorsmod.Wrapf(types.ErrOfferNotOpen, "offer %d is %s", offerID, before.Status)
	}
	return k.occupy(ctx, before, uuids)
}

// occupy marks free GPUs of the offer as occupied (leased or reserved).
func (k Keeper) occupy(ctx context.Context, before types.Offer, uuids []string) error {
	if err := checkGPUs(before, uuids, false); err != nil {
		return err
	}
	after := before
	after.LeasedGpuUuids = inOfferOrder(before.GpuUuids, append(slices.Clone(before.LeasedGpuUuids), uuids...))
	if err := k.saveOffer(ctx, &before, &after); err != nil {
		return err
	}
	return sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(&types.EventGPUsLeased{OfferId: before.Id, GpuUuids: uuids})
}

// FreeGPUs marks leased GPUs of an offer free again (x/auction calls it when
// a lease ends, for any reason). On a CLOSED offer the GPUs also leave the
// offer and are released in x/provider; the offer is removed with its last GPU.
func (k Keeper) FreeGPUs(ctx context.Context, offerID uint64, uuids []string) error {
	before, err := k.Offer(ctx, offerID)
	if err != nil {
		return err
	}
	if err := checkGPUs(before, uuids, true); err != nil {
		return err
	}
	after := before
	after.LeasedGpuUuids = without(before.LeasedGpuUuids, uuids)
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

// checkGPUs requires each UUID once, in the offer, and leased or free as wantLeased says.
func checkGPUs(o types.Offer, uuids []string, wantLeased bool) error {
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
		leased := slices.Contains(o.LeasedGpuUuids, u)
		if wantLeased && !leased {
			return errorsmod.Wrapf(types.ErrGPUNotLeased, "%s in offer %d", u, o.Id)
		}
		if !wantLeased && leased {
			return errorsmod.Wrapf(types.ErrGPULeased, "%s in offer %d", u, o.Id)
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
