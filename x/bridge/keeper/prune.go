package keeper

import (
	"cosmossdk.io/collections"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/bridge/types"
	"github.com/idlegpu/idlegpu/x/internal/duequeue"
)

// pruneRoots deletes the leaves of roots older than the newest roots_kept,
// then those roots and their confirmations, at most max_prunes_per_block
// entries a block. Totals are cumulative, so a recipient who did not claim
// against a pruned root is paid by a newer one.
func (k Keeper) pruneRoots(ctx sdk.Context, params types.Params) error {
	p, err := k.Progress.Get(ctx)
	if err != nil {
		return err
	}
	if p.LastEpoch <= uint64(params.RootsKept) {
		return nil
	}
	cutoff := p.LastEpoch - uint64(params.RootsKept) // epochs ≤ cutoff go
	budget := params.MaxPrunesPerBlock

	it, err := k.Leaves.Iterate(ctx, nil)
	if err != nil {
		return err
	}
	leaves, err := duequeue.Take[collections.Pair[uint64, []byte]](it, budget,
		func(key collections.Pair[uint64, []byte]) bool { return key.K1() <= cutoff })
	if err != nil {
		return err
	}
	for _, key := range leaves {
		if err := k.Leaves.Remove(ctx, key); err != nil {
			return err
		}
	}
	budget -= uint32(len(leaves))
	if budget == 0 {
		return nil // leaves of old roots may remain; the roots go once they are gone
	}

	rit, err := k.Roots.Iterate(ctx, nil)
	if err != nil {
		return err
	}
	roots, err := duequeue.Take[uint64](rit, budget, func(epoch uint64) bool { return epoch <= cutoff })
	if err != nil {
		return err
	}
	for _, epoch := range roots {
		// Every leaf of an epoch ≤ cutoff is gone (the walk above ended
		// inside its budget), so the root and its confirmations follow.
		if err := k.RootConfirms.Clear(ctx, collections.NewPrefixedPairRange[uint64, sdk.ValAddress](epoch)); err != nil {
			return err
		}
		if err := k.Roots.Remove(ctx, epoch); err != nil {
			return err
		}
	}
	return nil
}
