package keeper

import (
	"context"
	"errors"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	"time"

	"cosmossdk.io/collections"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// Lost time (docs/design.md#chain-halts-and-slow-blocks): every gap between
// two blocks beyond expected_block_millis is time the chain lost, whether a
// halt or a slow block. Every deadline a provider must meet moves by the
// time lost since its clock started, and by nothing else: a halt costs an
// honest provider nothing, and blocks that keep coming, however slowly,
// never suspend a deadline — only their lateness beyond the expected block
// time moves it. One accumulator, also read into each recorded header,
// makes that O(1) per audit and O(log n) per epoch.

// recordLostTime adds this block's gap beyond the expected block time to
// the accumulator; it returns that gap's share and the new total, in ms.
func (k Keeper) recordLostTime(ctx context.Context, params types.Params) (gapMs, totalMs uint64, err error) {
	total, err := k.lostMs(ctx)
	if err != nil {
		return 0, 0, err
	}
	prev, ok, err := k.previousBlockTime(ctx)
	if err != nil || !ok {
		return 0, total, err
	}
	gap := sdk.UnwrapSDKContext(ctx).BlockTime().Sub(prev)
	if gap <= params.ExpectedBlock() {
		return 0, total, nil
	}
	gapMs = uint64((gap - params.ExpectedBlock() + time.Millisecond - 1) / time.Millisecond)
	return gapMs, total + gapMs, k.LostTime.Set(ctx, total+gapMs)
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

// lostMs is the chain's lost time so far.
func (k Keeper) lostMs(ctx context.Context) (uint64, error) {
	v, err := k.LostTime.Get(ctx)
	if errors.Is(err, collections.ErrNotFound) {
		return 0, nil
	}
	return v, err
}

// movedBy is a deadline moved by the time lost since since (a LostTime
// reading taken when its clock started).
func (k Keeper) movedBy(ctx context.Context, deadline time.Time, since uint64) (time.Time, error) {
	now, err := k.lostMs(ctx)
	if err != nil || now <= since {
		return deadline, err
	}
	return deadline.Add(time.Duration(now-since) * time.Millisecond), nil
}

// lostMovedFrom is a deadline whose clock started at from (a past time
// whose reading was not taken then: an epoch window's start) moved by the
// time lost since from, read from the header ring, which keeps every
// header from the oldest watched window on: the first header at or after
// from holds the total after its gap, of which only the part after from
// counts.
func (k Keeper) lostMovedFrom(ctx context.Context, from, deadline time.Time) (time.Time, error) {
	h, ok, err := k.firstHeaderFrom(ctx, from)
	if err != nil || !ok {
		return deadline, err // no block since from: nothing lost yet
	}
	now, err := k.lostMs(ctx)
	if err != nil {
		return deadline, err
	}
	inGap := min(h.GapLostMs, uint64(h.Time.Sub(from)/time.Millisecond))
	lost := inGap
	if now > h.LostMs {
		lost += now - h.LostMs
	}
	return deadline.Add(time.Duration(lost) * time.Millisecond), nil
}

// unprovable says why no proof of the window [from, to] can exist, or ""
// when one can: a window shorter than a sample interval may hold no
// sample, and one without a block (a halt) has no challenge to bind to.
func (k Keeper) unprovable(ctx context.Context, prog types.LeaseProgress, from, to time.Time) (string, error) {
	if !prog.Provable(from, to) {
		return "window shorter than one sample interval", nil
	}
	ok, err := k.headerIn(ctx, from, to)
	if err != nil || ok {
		return "", err
	}
	return reasonNoBlock, nil
}

// reasonNoBlock is why an epoch whose window held no block is excused.
const reasonNoBlock = "no block in the window (chain halted)"

// emptyWindowsBefore reports whether every epoch from prog's next one up
// to, not including, epoch had a window without a block. A proof of epoch
// then excuses them at once (excuseEmptyBefore): waiting for their due
// time would leave the provider no time, since the halt's lost time moves
// an empty window's due time to about that of the first epoch after it.
// Windows are contiguous, so one header search over their span answers
// for all of them, by unprovable's test (headerIn); the header ring keeps
// every header from the lease's next window on (it is watched).
func (k Keeper) emptyWindowsBefore(ctx context.Context, start time.Time, prog types.LeaseProgress, epoch uint64) (bool, error) {
	from, _, ok := prog.Window(start, prog.NextEpoch)
	_, to, last := prog.Window(start, epoch-1)
	if !ok || !last || epoch <= prog.NextEpoch {
		return false, nil
	}
	held, err := k.headerIn(ctx, from, to)
	return err == nil && !held, err
}

// excuseEmptyBefore excuses, in order, the epochs before epoch that
// emptyWindowsBefore found without a block (a proof of epoch is being
// recorded). It saves nothing: the caller records the proof onto prog.
func (k Keeper) excuseEmptyBefore(ctx context.Context, lease auctiontypes.Lease, prog *types.LeaseProgress, epoch uint64) error {
	for prog.NextEpoch < epoch {
		if err := k.excuseNext(ctx, lease, prog, reasonNoBlock); err != nil {
			return err
		}
	}
	return nil
}

// excuse settles an epoch nobody could prove: neither paid nor missed, the
// provider's record untouched; its escrow goes back to the renter when the
// lease ends.
func (k Keeper) excuse(ctx context.Context, lease auctiontypes.Lease, prog types.LeaseProgress, reason string) error {
	if err := k.excuseNext(ctx, lease, &prog, reason); err != nil {
		return err
	}
	return k.advance(ctx, lease, prog)
}

// excuseNext settles prog's next epoch as excused, unsaved.
func (k Keeper) excuseNext(ctx context.Context, lease auctiontypes.Lease, prog *types.LeaseProgress, reason string) error {
	excused := prog.NextEpoch
	prog.NextEpoch++
	prog.ExcusedEpochs++
	prog.Settled(false, true)
	return sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(&types.EventEpochExcused{
		LeaseId: lease.Id, Epoch: excused, Provider: lease.Provider, Reason: reason,
	})
}
