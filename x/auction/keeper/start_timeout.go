package keeper

import (
	"context"
	"time"

	"cosmossdk.io/collections"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/internal/duequeue"
)

// closeUnstarted expires PENDING leases past their start deadline with a
// full refund, at most max_clearings_per_block. The provider pays what an
// open refusal costs (recordRefusal): silence must not be the cheaper way
// to refuse a lease it won.
func (k Keeper) closeUnstarted(ctx context.Context, params types.Params) (int, error) {
	now := sdk.UnwrapSDKContext(ctx).BlockTime()
	it, err := k.StartQueue.Iterate(ctx, nil)
	if err != nil {
		return 0, err
	}
	due, err := duequeue.Take(it, params.MaxClearingsPerBlock, func(key collections.Pair[time.Time, uint64]) bool { return !key.K1().After(now) })
	if err != nil {
		return 0, err
	}
	for _, key := range due {
		l, err := k.Lease(ctx, key.K2())
		if err != nil {
			return 0, err
		}
		if err := k.EndLease(ctx, l.Id, types.LEASE_STATUS_EXPIRED, "not started before the start timeout"); err != nil {
			return 0, err
		}
		if err := k.recordRefusal(ctx, l); err != nil {
			return 0, err
		}
	}
	return len(due), nil
}
