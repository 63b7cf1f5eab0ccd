package keeper

import (
	"fmt"

	"cosmossdk.io/collections"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/auction/types"
)

// Migrate2to3 starts state retention (retention.go) on a running chain:
// the params gain record_retention_seconds and max_record_prunes_per_block
// at their defaults, and every job that had already ended is retired as if
// it ended at the upgrade, so nothing is pruned sooner than retention after
// the chain starts counting. It walks every job once; an upgrade runs
// outside any block's bounds.
func (m Migrator) Migrate2to3(ctx sdk.Context) error {
	k := m.k
	params, err := k.Params.Get(ctx)
	if err != nil {
		return err
	}
	params.RecordRetentionSeconds = types.DefaultRecordRetentionSeconds
	params.MaxRecordPrunesPerBlock = types.DefaultMaxRecordPrunesPerBlock
	if err := params.Validate(); err != nil {
		return fmt.Errorf("x/auction 2→3: %w", err)
	}
	if err := k.Params.Set(ctx, params); err != nil {
		return err
	}
	pruneAt := ctx.BlockTime().Add(params.RecordRetention())
	return k.Jobs.Walk(ctx, nil, func(id uint64, j types.Job) (bool, error) {
		if !types.JobEnded(j) || !j.PruneAt.IsZero() {
			return false, nil
		}
		j.PruneAt = pruneAt
		if err := k.RetiredJobs.Set(ctx, collections.Join(pruneAt, id)); err != nil {
			return true, err
		}
		return false, k.Jobs.Set(ctx, id, j)
	})
}
