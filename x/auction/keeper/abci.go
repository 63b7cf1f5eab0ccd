package keeper

import "context"

// EndBlocker clears the jobs whose bid deadline is this block (and any that
// rolled over), then closes leases that were never started in time (each
// step bounded by max_clearings_per_block), then drops wallet signers'
// nonces past their deadline (at most max_nonce_prunes_per_block) and
// ended jobs past their retention (at most max_record_prunes_per_block).
func (k Keeper) EndBlocker(ctx context.Context) error {
	params, err := k.Params.Get(ctx)
	if err != nil {
		return err
	}
	if _, err := k.clearDue(ctx, params); err != nil {
		return err
	}
	if _, err := k.closeUnstarted(ctx, params); err != nil {
		return err
	}
	if err := k.pruneNonces(ctx, params.MaxNoncePrunesPerBlock); err != nil {
		return err
	}
	return k.pruneRecords(ctx, params.MaxRecordPrunesPerBlock)
}
