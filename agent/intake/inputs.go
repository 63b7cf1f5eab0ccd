package intake

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/idlegpu/idlegpu/agent/runner"
	"github.com/idlegpu/idlegpu/endpoint"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
)

// StartMargin is the part of a PENDING lease's start window kept for
// MsgStartLease after the inputs are fetched: a fetch that would leave
// less is cut short and the lease refused (it then expires with a full
// refund) rather than started too late.
const StartMargin = time.Minute

// prepareData fetches a PENDING lease's inputs before its job starts and
// returns the job's mounts. The fetch has until the lease's start deadline
// less StartMargin, or until ctx ends (the agent stopping: preparing.go).
func (in *Intake) prepareData(ctx context.Context, l auctiontypes.Lease, inputs []endpoint.Input) ([]runner.Mount, error) {
	if err := in.canFetch(l, inputs); err != nil {
		return nil, err
	}
	if in.Data == nil {
		return nil, nil
	}
	by := l.StartDeadline.Add(-StartMargin)
	fctx, cancel := context.WithDeadline(ctx, by)
	defer cancel()
	mounts, err := in.Data.Prepare(fctx, l.Id, inputs)
	if errors.Is(fctx.Err(), context.DeadlineExceeded) {
		return nil, fmt.Errorf("%w: the inputs of lease %d were not fetched before its start deadline less %s", ErrRefused, l.Id, StartMargin)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrRefused, err)
	}
	return mounts, nil
}

// canFetch refuses at once the inputs this agent cannot fetch in time:
// none without a job data store, none for the process runner (it mounts
// nothing, so the job would not find them), none too close to the lease's
// start deadline.
func (in *Intake) canFetch(l auctiontypes.Lease, inputs []endpoint.Input) error {
	if len(inputs) == 0 {
		return nil
	}
	if in.Data == nil {
		return fmt.Errorf("%w: this agent fetches no inputs", ErrRefused)
	}
	if in.Runner != nil && in.Runner.Name() == "process" {
		return fmt.Errorf("%w: the process runner cannot mount inputs", ErrRefused)
	}
	if !time.Now().Before(l.StartDeadline.Add(-StartMargin)) {
		return fmt.Errorf("%w: lease %d must start by %s, too soon to fetch its inputs", ErrRefused, l.Id, l.StartDeadline.UTC().Format(time.RFC3339))
	}
	return nil
}

// discardData drops the data of a lease whose job did not start.
func (in *Intake) discardData(leaseID uint64) {
	if in.Data == nil {
		return
	}
	if err := in.Data.Discard(leaseID); err != nil {
		in.Log.Warn("job data: removing the data of a lease that did not start", "lease", leaseID, "err", err)
	}
}

// FinaliseOutputs lists and signs a lease's outputs once its job has
// stopped; the listing states when they are deleted.
func (in *Intake) FinaliseOutputs(leaseID uint64, endedAt time.Time) error {
	if in.Data == nil {
		return nil
	}
	l, err := in.Data.Finalise(leaseID, endedAt)
	if errors.Is(err, endpoint.ErrNoOutputs) {
		return nil
	}
	if err != nil {
		return err
	}
	in.Log.Info("outputs listed", "lease", leaseID, "files", len(l.Files), "skipped", l.Skipped, "delete_at", l.DeleteAt)
	return nil
}
