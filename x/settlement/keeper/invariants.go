package keeper

import (
	"context"
	"fmt"
	"slices"
	"time"

	"cosmossdk.io/collections"

	sdk "github.com/cosmos/cosmos-sdk/types"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"

	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// CheckInvariants runs every x/settlement invariant.
func (k Keeper) CheckInvariants(ctx context.Context) error {
	if err := k.RewardsBackedInvariant(ctx); err != nil {
		return err
	}
	if err := k.DueIndexInvariant(ctx); err != nil {
		return err
	}
	if err := k.AuditIndexInvariant(ctx); err != nil {
		return err
	}
	if err := k.HeldInvariant(ctx); err != nil {
		return err
	}
	if err := k.ExpiryIndexInvariant(ctx); err != nil {
		return err
	}
	return k.PruneIndexInvariant(ctx)
}

// PruneIndexInvariant: every stored proof has exactly one pruning entry,
// at its prune_at, and there are no others.
func (k Keeper) PruneIndexInvariant(ctx context.Context) error {
	records := 0
	err := k.Proofs.Walk(ctx, nil, func(_ collections.Pair[uint64, uint64], r types.ProofRecord) (bool, error) {
		records++
		has, err := k.Prune.Has(ctx, collections.Join3(r.PruneAt, r.Proof.LeaseId, r.Proof.Epoch))
		if err == nil && !has {
			err = fmt.Errorf("proof of lease %d epoch %d has no pruning entry", r.Proof.LeaseId, r.Proof.Epoch)
		}
		return err != nil, err
	})
	if err != nil {
		return err
	}
	it, err := k.Prune.Iterate(ctx, nil)
	if err != nil {
		return err
	}
	keys, err := it.Keys()
	if err != nil {
		return err
	}
	if len(keys) != records {
		return fmt.Errorf("the pruning index holds %d entries for %d proofs", len(keys), records)
	}
	return nil
}

// DueIndexInvariant: the liveness index holds exactly one entry per
// watched lease, at its progress's next_due.
func (k Keeper) DueIndexInvariant(ctx context.Context) error {
	want := 0
	err := k.Progress.Walk(ctx, nil, func(id uint64, p types.LeaseProgress) (bool, error) {
		if p.NextDue.IsZero() {
			return false, nil
		}
		want++
		has, err := k.Due.Has(ctx, collections.Join(p.NextDue, id))
		if err == nil && !has {
			err = fmt.Errorf("lease %d is due at %s but not in the liveness index", id, p.NextDue)
		}
		return err != nil, err
	})
	if err != nil {
		return err
	}
	it, err := k.Due.Iterate(ctx, nil)
	if err != nil {
		return err
	}
	keys, err := it.Keys()
	if err != nil {
		return err
	}
	if len(keys) != want {
		return fmt.Errorf("the liveness index holds %d entries, %d leases are watched", len(keys), want)
	}
	wit, err := k.Windows.Iterate(ctx, nil)
	if err != nil {
		return err
	}
	windows, err := wit.Keys()
	if err != nil {
		return err
	}
	if len(windows) != want {
		return fmt.Errorf("the window index holds %d entries, %d leases are watched", len(windows), want)
	}
	return nil
}

// RewardsBackedInvariant: the module account holds exactly the unclaimed
// rewards plus the fees of live audits, per denom (protocol fees leave at once).
func (k Keeper) RewardsBackedInvariant(ctx context.Context) error {
	var want sdk.Coins
	it, err := k.Rewards.Iterate(ctx, nil)
	if err != nil {
		return err
	}
	defer it.Close()
	for ; it.Valid(); it.Next() {
		kv, err := it.KeyValue()
		if err != nil {
			return err
		}
		want = want.Add(sdk.NewCoin(kv.Key.K2(), kv.Value))
	}
	err = k.Audits.Walk(ctx, nil, func(_ uint64, a types.Audit) (bool, error) {
		if a.IsLive() && a.Fee.IsPositive() {
			want = want.Add(a.Fee)
		}
		return false, nil
	})
	if err != nil {
		return err
	}
	if got := k.bank.GetAllBalances(ctx, authtypes.NewModuleAddress(types.ModuleName)); !got.Equal(want) {
		return fmt.Errorf("settlement holds %s, unclaimed rewards and live audit fees are %s", got, want)
	}
	return nil
}

// AuditIndexInvariant: every stored audit has exactly one queue entry, at
// its QueueTime; the live-audit index names exactly the live audits, one per
// GPU; every live audit's GPU is held (docs/design.md#audits, "Held stays
// held").
func (k Keeper) AuditIndexInvariant(ctx context.Context) error {
	audits, live := 0, 0
	err := k.Audits.Walk(ctx, nil, func(id uint64, a types.Audit) (bool, error) {
		audits++
		has, err := k.AuditQueue.Has(ctx, collections.Join(a.QueueTime(), id))
		if err == nil && !has {
			err = fmt.Errorf("audit %d (%s) has no queue entry at %s", id, a.Status, a.QueueTime())
		}
		if err != nil || !a.IsLive() {
			return err != nil, err
		}
		live++
		if held, err := k.Holds.Has(ctx, a.GpuUuid); err != nil || !held {
			return true, fmt.Errorf("live audit %d's GPU %s is not held (%v)", id, a.GpuUuid, err)
		}
		if got, err := k.LiveAudit.Get(ctx, a.GpuUuid); err != nil || got != id {
			return true, fmt.Errorf("live audit %d of %s is not indexed (index says %d, %v)", id, a.GpuUuid, got, err)
		}
		return false, nil
	})
	if err != nil {
		return err
	}
	queued, indexed := 0, 0
	if err := k.AuditQueue.Walk(ctx, nil, func(collections.Pair[time.Time, uint64]) (bool, error) { queued++; return false, nil }); err != nil {
		return err
	}
	if err := k.LiveAudit.Walk(ctx, nil, func(string, uint64) (bool, error) { indexed++; return false, nil }); err != nil {
		return err
	}
	if queued != audits || indexed != live {
		return fmt.Errorf("audit queue holds %d entries for %d audits; live index %d for %d live audits", queued, audits, indexed, live)
	}
	return nil
}

// HeldInvariant: a held GPU still in the open or paused offer its hold
// occupies it in is occupied there: nothing gave it back to the market.
func (k Keeper) HeldInvariant(ctx context.Context) error {
	return k.Holds.Walk(ctx, nil, func(uuid string, offerID uint64) (bool, error) {
		if offerID == 0 {
			return false, nil
		}
		o, found, err := k.offers.OfferOfGPU(ctx, uuid)
		if err != nil {
			return true, err
		}
		if !found || o.Id != offerID || o.Status == offertypes.OFFER_STATUS_CLOSED {
			return false, nil
		}
		if !slices.Contains(o.OccupiedGpuUuids, uuid) {
			return true, fmt.Errorf("held GPU %s is free in offer %d", uuid, offerID)
		}
		return false, nil
	})
}

// ExpiryIndexInvariant: every expiry entry is its GPU's current pass end,
// and every pass still running has its entry (so each pass ends on time).
func (k Keeper) ExpiryIndexInvariant(ctx context.Context) error {
	now := sdk.UnwrapSDKContext(ctx).BlockTime()
	err := k.Expiry.Walk(ctx, nil, func(key collections.Pair[time.Time, string]) (bool, error) {
		v, err := k.Verifications.Get(ctx, key.K2())
		if err != nil || !v.VerifiedUntil.Equal(key.K1()) {
			return true, fmt.Errorf("expiry entry (%s, %s) is not the GPU's pass end (%v)", key.K1(), key.K2(), err)
		}
		return false, nil
	})
	if err != nil {
		return err
	}
	return k.Verifications.Walk(ctx, nil, func(uuid string, v types.GPUVerification) (bool, error) {
		if !v.VerifiedUntil.After(now) {
			return false, nil
		}
		has, err := k.Expiry.Has(ctx, collections.Join(v.VerifiedUntil, uuid))
		if err == nil && !has {
			err = fmt.Errorf("GPU %s's pass until %s has no expiry entry", uuid, v.VerifiedUntil)
		}
		return err != nil, err
	})
}
