package keeper

import (
	"context"
	"errors"
	"time"

	"cosmossdk.io/collections"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// Chain halts (x/settlement/README.md, "Chain halts"): downtime never counts against
// a provider. A gap between consecutive blocks longer than halt_gap_seconds
// is recorded; every deadline a provider must meet is moved by the part of
// each recorded gap that fell after the deadline's clock started
// (HaltExtended), and an epoch whose window holds no block is excused.

// recordGap remembers the gap between the previous block and this one when
// it is a halt, dropping the oldest beyond MaxGaps.
func (k Keeper) recordGap(ctx context.Context, params types.Params) error {
	prev, ok, err := k.previousBlockTime(ctx)
	if err != nil || !ok {
		return err
	}
	now := sdk.UnwrapSDKContext(ctx).BlockTime()
	if now.Sub(prev) <= params.HaltGap() {
		return nil
	}
	if err := k.Gaps.Set(ctx, now, types.Gap{Start: prev, End: now}); err != nil {
		return err
	}
	return k.capGaps(ctx)
}

// previousBlockTime is the last block's time from the header ring; false
// on the first block, or a chain imported without its ring.
func (k Keeper) previousBlockTime(ctx context.Context) (time.Time, bool, error) {
	prev, err := k.Headers.Get(ctx, sdk.UnwrapSDKContext(ctx).BlockHeight()-1)
	if errors.Is(err, collections.ErrNotFound) {
		return time.Time{}, false, nil
	}
	return prev.Time, err == nil, err
}

// capGaps drops the oldest gaps beyond MaxGaps (one per halt recorded, so
// at most one per block).
func (k Keeper) capGaps(ctx context.Context) error {
	it, err := k.Gaps.Iterate(ctx, nil)
	if err != nil {
		return err
	}
	defer it.Close()
	var ends []time.Time
	for ; it.Valid(); it.Next() {
		end, err := it.Key()
		if err != nil {
			return err
		}
		ends = append(ends, end)
	}
	for i := 0; i+types.MaxGaps < len(ends); i++ {
		if err := k.Gaps.Remove(ctx, ends[i]); err != nil {
			return err
		}
	}
	return nil
}

// HaltExtended moves a deadline whose clock started at from by the chain's
// downtime since then: each recorded halt that began before the (moved)
// deadline and ended after from adds the part of it after from. Gaps are
// disjoint and visited in time order, so one pass gives the fixed point.
func (k Keeper) HaltExtended(ctx context.Context, from, deadline time.Time) (time.Time, error) {
	rng := new(collections.Range[time.Time]).StartExclusive(from)
	it, err := k.Gaps.Iterate(ctx, rng)
	if err != nil {
		return time.Time{}, err
	}
	defer it.Close()
	for ; it.Valid(); it.Next() {
		g, err := it.Value()
		if err != nil {
			return time.Time{}, err
		}
		if !g.Start.Before(deadline) {
			break
		}
		deadline = deadline.Add(g.End.Sub(maxTime(g.Start, from)))
	}
	return deadline, nil
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// headerIn reports whether a recorded block header lies inside [from, to]:
// a proof of that window needs one as its challenge. Heights grow with
// time, so a binary search over the ring finds the first header at or
// after from in O(log n) reads.
func (k Keeper) headerIn(ctx context.Context, from, to time.Time) (bool, error) {
	lo, hi := int64(0), sdk.UnwrapSDKContext(ctx).BlockHeight()
	var found *types.HeaderRecord
	for lo <= hi {
		mid := lo + (hi-lo)/2
		h, ok, err := k.headerAtOrAfter(ctx, mid)
		if err != nil {
			return false, err
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
	return found != nil && !found.Time.After(to), nil
}

// headerAtOrAfter returns the first recorded header at height ≥ h.
func (k Keeper) headerAtOrAfter(ctx context.Context, h int64) (types.HeaderRecord, bool, error) {
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
