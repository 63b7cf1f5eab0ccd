package keeper

import "context"

// BeginBlocker records this block's header hash and time, the challenge a
// proof of an epoch running now may bind to, with the time lost before
// it, draws the samples of audits answered before it, and
// drops headers older than any window a proof may still be submitted for.
func (k Keeper) BeginBlocker(ctx context.Context) error {
	params, err := k.Params.Get(ctx)
	if err != nil {
		return err
	}
	if err := k.drawSamples(ctx, params.MaxAuditStepsPerBlock); err != nil {
		return err
	}
	recorded, err := k.recordHeader(ctx, params)
	if err != nil || !recorded {
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

// EndBlocker drops proof records past their retention (at most
// max_prunes_per_block), runs due audit steps (missed answers and proofs,
// pruning) and holds GPUs whose pass ended (each at most
// max_audit_steps_per_block), draws random audits, and settles overdue
// epochs, oldest first, at most max_misses_per_block.
func (k Keeper) EndBlocker(ctx context.Context) error {
	params, err := k.Params.Get(ctx)
	if err != nil {
		return err
	}
	if err := k.pruneProofs(ctx, params.MaxPrunesPerBlock); err != nil {
		return err
	}
	if err := k.stepAudits(ctx, params, params.MaxAuditStepsPerBlock); err != nil {
		return err
	}
	if err := k.expirePasses(ctx, params.MaxAuditStepsPerBlock); err != nil {
		return err
	}
	if err := k.drawRandomAudits(ctx, params); err != nil {
		return err
	}
	return k.settleOverdue(ctx, params.MaxMissesPerBlock)
}
