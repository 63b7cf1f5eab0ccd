package keeper

import (
	"context"
	"time"

	"cosmossdk.io/collections"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/internal/duequeue"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// recordHeader stores this block's header hash and time, the challenge a
// proof of an epoch running now may bind to.
func (k Keeper) recordHeader(ctx context.Context) (bool, error) {
	sdkCtx := sdk.UnwrapSDKContext(ctx)
	hash := sdkCtx.HeaderHash()
	if len(hash) == 0 {
		return false, nil // no header (InitChain, or a context built without one)
	}
	return true, k.Headers.Set(ctx, sdkCtx.BlockHeight(), types.HeaderRecord{
		Height: sdkCtx.BlockHeight(), Hash: hash, Time: sdkCtx.BlockTime(),
	})
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
