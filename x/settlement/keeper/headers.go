package keeper

import (
	"context"
	"errors"
	"time"

	"cosmossdk.io/collections"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/internal/duequeue"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// recordHeader stores this block's header hash and time, the challenge a
// proof of an epoch running now may bind to, with the chain's lost time
// once this block's gap is counted (halts.go).
func (k Keeper) recordHeader(ctx context.Context, params types.Params) (bool, error) {
	sdkCtx := sdk.UnwrapSDKContext(ctx)
	hash := sdkCtx.HeaderHash()
	if len(hash) == 0 {
		return false, nil // no header (InitChain, or a context built without one)
	}
	gapMs, totalMs, err := k.recordLostTime(ctx, params)
	if err != nil {
		return false, err
	}
	return true, k.Headers.Set(ctx, sdkCtx.BlockHeight(), types.HeaderRecord{
		Height: sdkCtx.BlockHeight(), Hash: hash, Time: sdkCtx.BlockTime(), LostMs: totalMs, GapLostMs: gapMs,
	})
}

// headerIn reports whether a recorded block header lies inside [from, to]:
// a proof of that window needs one as its challenge.
func (k Keeper) headerIn(ctx context.Context, from, to time.Time) (bool, error) {
	h, ok, err := k.firstHeaderFrom(ctx, from)
	return ok && !h.Time.After(to), err
}

// firstHeaderFrom is the first recorded header at or after from. Heights
// grow with time, so a binary search over the ring finds it in O(log n)
// reads.
func (k Keeper) firstHeaderFrom(ctx context.Context, from time.Time) (types.HeaderRecord, bool, error) {
	lo, hi := int64(0), sdk.UnwrapSDKContext(ctx).BlockHeight()
	var found *types.HeaderRecord
	for lo <= hi {
		mid := lo + (hi-lo)/2
		h, ok, err := k.headerAtOrAfter(ctx, mid)
		if err != nil {
			return types.HeaderRecord{}, false, err
		}
		switch {
		case !ok:
			hi = mid - 1
		case h.Time.Before(from):
			lo = h.Height + 1
		default:
			found = &h
			hi = mid - 1
		}
	}
	if found == nil {
		return types.HeaderRecord{}, false, nil
	}
	return *found, true, nil
}

// headerAtOrAfter returns the first recorded header at height ≥ h. Every
// block records its header, so below the newest height one is almost
// always at h itself: a point read, far cheaper than an iterator over the
// block's cache store; the iterator covers heights pruned or never
// recorded (before the module's first block).
func (k Keeper) headerAtOrAfter(ctx context.Context, h int64) (types.HeaderRecord, bool, error) {
	if rec, err := k.Headers.Get(ctx, h); err == nil {
		return rec, true, nil
	} else if !errors.Is(err, collections.ErrNotFound) {
		return types.HeaderRecord{}, false, err
	}
	it, err := k.Headers.Iterate(ctx, new(collections.Range[int64]).StartInclusive(h))
	if err != nil {
		return types.HeaderRecord{}, false, err
	}
	defer it.Close()
	if !it.Valid() {
		return types.HeaderRecord{}, false, nil
	}
	v, err := it.Value()
	return v, err == nil, err
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
