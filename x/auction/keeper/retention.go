package keeper

import (
	"context"
	"fmt"
	"time"

	"cosmossdk.io/collections"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/internal/duequeue"
)

// State retention (docs/design.md#state-retention): a job that ended for
// good (types.JobEnded) stays in state with its leases for
// record_retention_seconds, so its renter, its providers' agents and
// explorers read how it ended; then EndBlock prunes it, its leases and
// their index entries, and x/settlement drops the leases' progress
// (AfterLeasePruned). What a dispute needs outlives the lease elsewhere: a
// fraud report is judged on the stored proof record, which names its
// provider and has its own retention. The web app's index is the archive.

// retire queues a job that has just ended for good for pruning at block
// time + record_retention_seconds. A job already retired keeps its time
// (a cancel after the last lease ended changes its status, not its end).
func (k Keeper) retire(ctx context.Context, job *types.Job) error {
	if !types.JobEnded(*job) || !job.PruneAt.IsZero() {
		return nil
	}
	params, err := k.Params.Get(ctx)
	if err != nil {
		return err
	}
	job.PruneAt = sdk.UnwrapSDKContext(ctx).BlockTime().Add(params.RecordRetention())
	return k.RetiredJobs.Set(ctx, collections.Join(job.PruneAt, job.Id))
}

// pruneRecords drops, oldest first, at most limit retired jobs whose
// prune_at has come, each with its leases (at most max_gpus_per_job).
func (k Keeper) pruneRecords(ctx context.Context, limit uint32) error {
	now := sdk.UnwrapSDKContext(ctx).BlockTime()
	it, err := k.RetiredJobs.Iterate(ctx, nil)
	if err != nil {
		return err
	}
	due, err := duequeue.Take(it, limit, func(key collections.Pair[time.Time, uint64]) bool { return !key.K1().After(now) })
	if err != nil {
		return err
	}
	for _, key := range due {
		if err := k.RetiredJobs.Remove(ctx, key); err != nil {
			return err
		}
		if err := k.pruneJob(ctx, key.K2()); err != nil {
			return err
		}
	}
	return nil
}

// pruneJob deletes an ended job, its leases and every index entry naming
// them. A job that is not ended, or a lease still live, is a broken
// invariant and halts the block rather than losing escrow.
func (k Keeper) pruneJob(ctx context.Context, id uint64) error {
	job, err := k.Job(ctx, id)
	if err != nil {
		return err
	}
	if !types.JobEnded(job) {
		return fmt.Errorf("job %d is %s with %d open leases: not ended, not pruned", id, job.Status, job.OpenLeases)
	}
	renter, err := k.storedAddress(job.Renter)
	if err != nil {
		return err
	}
	for _, lid := range job.LeaseIds {
		if err := k.pruneLease(ctx, lid, renter); err != nil {
			return err
		}
	}
	if err := k.dropBids(ctx, &job); err != nil {
		return err
	}
	if err := k.RenterJobs.Remove(ctx, collections.Join(renter, job.Id)); err != nil {
		return err
	}
	return k.Jobs.Remove(ctx, job.Id)
}

func (k Keeper) pruneLease(ctx context.Context, id uint64, renter sdk.AccAddress) error {
	l, err := k.Lease(ctx, id)
	if err != nil {
		return err
	}
	if live(l) {
		return fmt.Errorf("lease %d of ended job %d is %s: not pruned", id, l.JobId, l.Status)
	}
	provider, err := k.storedAddress(l.Provider)
	if err != nil {
		return err
	}
	if err := k.ProviderLeases.Remove(ctx, collections.Join(provider, id)); err != nil {
		return err
	}
	if err := k.RenterLeases.Remove(ctx, collections.Join(renter, id)); err != nil {
		return err
	}
	if err := k.Leases.Remove(ctx, id); err != nil {
		return err
	}
	return k.afterLeasePruned(ctx, l)
}
