package reconciler

import (
	"context"
	"errors"
	"fmt"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idlegpu/idlegpu/agent/runner"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
)

// Recover re-adopts the jobs an earlier run started for leases that
// are still PENDING, ACTIVE or CLOSING, and stops those of leases that
// ended while the agent was away (nothing else would: the chain leases
// their GPUs to others). A job that ended by itself is handled by
// Reconcile (the lease is closed).
func (r *Reconciler) Recover(ctx context.Context) error {
	for _, rec := range r.Records.All() {
		if !rec.Ended.IsZero() {
			continue
		}
		l, err := r.Chain.Lease(ctx, rec.LeaseID)
		if status.Code(err) == codes.NotFound {
			// Ended long enough ago to be pruned from the chain.
			if err := r.StopAny(ctx, rec, "lease is gone from the chain"); err != nil {
				return err
			}
			if err := r.Records.Delete(rec.LeaseID); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("lease %d: %w", rec.LeaseID, err)
		}
		if !live(l.Status) {
			if err := r.Retire(ctx, rec, time.Now().UTC()); err != nil {
				return err
			}
			continue
		}
		// A CLOSING lease's job is adopted too, so that it is stopped.
		job, err := r.Runner.Adopt(ctx, rec.Spec())
		switch {
		case errors.Is(err, runner.ErrNotRunning):
			r.Log.Warn("job of a live lease is gone", "lease", rec.LeaseID, "status", l.Status)
			continue
		case err != nil:
			return fmt.Errorf("adopt the job of lease %d: %w", rec.LeaseID, err)
		}
		r.Leases.SetJob(rec.LeaseID, job)
		r.Log.Info("job adopted", "lease", rec.LeaseID, "status", l.Status, "pids", len(job.PIDs()))
	}
	return nil
}

// live reports a lease the agent still has work for: to start, to prove,
// or (CLOSING) to prove up to its early end.
func live(s auctiontypes.LeaseStatus) bool {
	return s == auctiontypes.LEASE_STATUS_PENDING || s == auctiontypes.LEASE_STATUS_ACTIVE ||
		s == auctiontypes.LEASE_STATUS_CLOSING
}
