package keeper

import (
	"context"
	"errors"
	"time"

	"cosmossdk.io/collections"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// Lost time (docs/design.md#audits): every gap between two blocks beyond
// expected_block_millis is time the chain lost, whether a halt or a slow
// block. Audit deadlines move by the time lost since their clock started,
// so no stall, however short or long, costs an honest provider an audit;
// one accumulator makes that O(1) per audit.

// recordLostTime adds this block's gap beyond the expected block time.
func (k Keeper) recordLostTime(ctx context.Context, params types.Params) error {
	prev, ok, err := k.previousBlockTime(ctx)
	if err != nil || !ok {
		return err
	}
	gap := sdk.UnwrapSDKContext(ctx).BlockTime().Sub(prev)
	if gap <= params.ExpectedBlock() {
		return nil
	}
	lost, err := k.lostMs(ctx)
	if err != nil {
		return err
	}
	return k.LostTime.Set(ctx, lost+uint64((gap-params.ExpectedBlock()+time.Millisecond-1)/time.Millisecond))
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
// reading).
func (k Keeper) movedBy(ctx context.Context, deadline time.Time, since uint64) (time.Time, error) {
	now, err := k.lostMs(ctx)
	if err != nil || now <= since {
		return deadline, err
	}
	return deadline.Add(time.Duration(now-since) * time.Millisecond), nil
}
