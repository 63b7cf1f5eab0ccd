package keeper

import (
	"context"
	"time"

	"cosmossdk.io/collections"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/internal/duequeue"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// BeginBlocker records this block's header hash and time, the challenge a
// proof of an epoch running now may bind to, and drops headers older than
// any window a proof may still be submitted for.
func (k Keeper) BeginBlocker(ctx context.Context) error {
	sdkCtx := sdk.UnwrapSDKContext(ctx)
	hash := sdkCtx.HeaderHash()
	if len(hash) == 0 {
		return nil // no header (InitChain, or a context built without one)
	}
	if err := k.Headers.Set(ctx, sdkCtx.BlockHeight(), types.HeaderRecord{
		Height: sdkCtx.BlockHeight(), Hash: hash, Time: sdkCtx.BlockTime(),
	}); err != nil {
		return err
	}
	params, err := k.Params.Get(ctx)
	if err != nil {
		return err
	}
	if err := k.recordGap(ctx, params); err != nil {
		return err
	}
	cutoff, err := k.headerCutoff(ctx, params)
	if err != nil {
		return err
	}
	// One header is added per block, so the same bound as proof pruning
	// (max_prunes_per_block) keeps the ring at its retention, and shrinks it
	// back quickly after a params change.
	return k.pruneHeaders(ctx, cutoff, params.MaxPrunesPerBlock)
}

// headerCutoff is the time before which no header is needed: the current
// params' retention, but never past the window start of any watched
// lease's next epoch (a live lease may have a longer epoch, or have waited
// out a halt, and its proof still binds to a header in that window).
func (k Keeper) headerCutoff(ctx context.Context, params types.Params) (time.Time, error) {
	cutoff := sdk.UnwrapSDKContext(ctx).BlockTime().Add(-params.HeaderRetention())
	it, err := k.Windows.Iterate(ctx, nil)
	if err != nil {
		return time.Time{}, err
	}
	defer it.Close()
	if it.Valid() {
		key, err := it.Key()
		if err != nil {
			return time.Time{}, err
		}
		if key.K1().Before(cutoff) {
			cutoff = key.K1()
		}
	}
	return cutoff, nil
}

// pruneHeaders removes, oldest first, at most limit headers from before
// cutoff.
func (k Keeper) pruneHeaders(ctx context.Context, cutoff time.Time, limit uint32) error {
	it, err := k.Headers.Iterate(ctx, nil)
	if err != nil {
		return err
	}
	// Strictly before the cutoff: the header at it may be a window's first.
	old, err := duequeue.Take(duequeue.Entries(it), limit, func(h collections.KeyValue[int64, types.HeaderRecord]) bool { return h.Value.Time.Before(cutoff) })
	if err != nil {
		return err
	}
	for _, h := range old {
		if err := k.Headers.Remove(ctx, h.Key); err != nil {
			return err
		}
	}
	return nil
}
