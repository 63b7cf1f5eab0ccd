package keeper

import (
	"context"
	"fmt"

	"cosmossdk.io/collections"

	sdk "github.com/cosmos/cosmos-sdk/types"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"

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
	return nil
}

// RewardsBackedInvariant: the module account holds exactly the unclaimed
// rewards, per denom (fees leave at once; audit fees join with audits).
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
	if got := k.bank.GetAllBalances(ctx, authtypes.NewModuleAddress(types.ModuleName)); !got.Equal(want) {
		return fmt.Errorf("settlement holds %s, unclaimed rewards are %s", got, want)
	}
	return nil
}
