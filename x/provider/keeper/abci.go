package keeper

import "context"

// EndBlocker completes due unbondings, at most max_unbondings_per_block.
func (k Keeper) EndBlocker(ctx context.Context) error {
	_, err := k.CompleteUnbondings(ctx)
	return err
}
