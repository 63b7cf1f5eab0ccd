package keeper

import (
	"context"
	"time"

	sdk "github.com/cosmos/cosmos-sdk/types"

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
	// One header is added per block, so the same bound as proof pruning
	// (max_prunes_per_block) keeps the ring at its retention, and shrinks it
	// back quickly after a params change.
	return k.pruneHeaders(ctx, sdkCtx.BlockTime().Add(-params.HeaderRetention()), params.MaxPrunesPerBlock)
}

// pruneHeaders removes, oldest first, at most limit headers from before
// cutoff.
func (k Keeper) pruneHeaders(ctx context.Context, cutoff time.Time, limit uint32) error {
	it, err := k.Headers.Iterate(ctx, nil)
	if err != nil {
		return err
	}
	var old []int64
	for ; it.Valid() && uint32(len(old)) < limit; it.Next() {
		h, err := it.Value()
		if err != nil {
			it.Close()
			return err
		}
		if !h.Time.Before(cutoff) {
			break
		}
		old = append(old, h.Height)
	}
	it.Close()
	for _, h := range old {
		if err := k.Headers.Remove(ctx, h); err != nil {
			return err
		}
	}
	return nil
}
