package keeper

import (
	"context"
	"time"

	"cosmossdk.io/collections"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/internal/duequeue"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// storeProof keeps an accepted proof until proof_retention epochs of its
// lease have passed, indexed by that time for pruning.
func (k Keeper) storeProof(ctx context.Context, rec types.ProofRecord, epochSeconds uint64, params types.Params) error {
	rec.PruneAt = rec.SubmittedAt.Add(params.Retention(epochSeconds))
	p := rec.Proof
	if err := k.Prune.Set(ctx, collections.Join3(rec.PruneAt, p.LeaseId, p.Epoch)); err != nil {
		return err
	}
	return k.Proofs.Set(ctx, collections.Join(p.LeaseId, p.Epoch), rec)
}

// dropProof removes a stored proof and its pruning entry.
func (k Keeper) dropProof(ctx context.Context, rec types.ProofRecord) error {
	p := rec.Proof
	if err := k.Prune.Remove(ctx, collections.Join3(rec.PruneAt, p.LeaseId, p.Epoch)); err != nil {
		return err
	}
	return k.Proofs.Remove(ctx, collections.Join(p.LeaseId, p.Epoch))
}

// pruneProofs drops, oldest first, at most limit proof records whose
// retention has run out.
func (k Keeper) pruneProofs(ctx context.Context, limit uint32) error {
	now := sdk.UnwrapSDKContext(ctx).BlockTime()
	it, err := k.Prune.Iterate(ctx, nil)
	if err != nil {
		return err
	}
	old, err := duequeue.Take(it, limit, func(key collections.Triple[time.Time, uint64, uint64]) bool { return !key.K1().After(now) })
	if err != nil {
		return err
	}
	for _, key := range old {
		if err := k.Prune.Remove(ctx, key); err != nil {
			return err
		}
		if err := k.Proofs.Remove(ctx, collections.Join(key.K2(), key.K3())); err != nil {
			return err
		}
	}
	return nil
}
