package daemon

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cosmos/cosmos-sdk/client"
	"github.com/cosmos/cosmos-sdk/types/tx/signing"

	"github.com/idlegpu/idlegpu/agent/config"
	"github.com/idlegpu/idlegpu/agent/jobdata"
	"github.com/idlegpu/idlegpu/agent/runner"
	"github.com/idlegpu/idlegpu/endpoint"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
)

// startMargin is the part of a PENDING lease's start window kept for
// MsgStartLease after the inputs are fetched: a fetch that would leave
// less is cut short and the lease refused (it then expires with a full
// refund) rather than started too late.
const startMargin = time.Minute

// openJobData opens the store of leases' inputs and outputs; listings are
// signed with the agent's key (its keyring key, as transactions are).
func openJobData(cfg config.Config, cctx client.Context, provider string) (*jobdata.Store, error) {
	s, err := cfg.JobData.Resolved(cfg.Runner.WorkDir)
	if err != nil {
		return nil, err
	}
	sign := func(msg []byte) ([]byte, []byte, error) {
		sig, pub, err := cctx.Keyring.Sign(cctx.FromName, msg, signing.SignMode_SIGN_MODE_DIRECT)
		if err != nil {
			return nil, nil, err
		}
		return sig, pub.Bytes(), nil
	}
	return jobdata.Open(jobdata.Config{Dir: s.Dir, CacheDir: s.CacheDir, CacheBytes: s.CacheBytes, LeaseInputBytes: s.LeaseInputBytes,
		Retention: s.Retention, AllowPrivateNetworks: s.AllowPrivateNetworks}, jobdata.Identity{ChainID: cctx.ChainID, Provider: provider}, sign)
}

// prepareData fetches a PENDING lease's inputs before its job starts and
// returns the job's mounts. The fetch has until the lease's start deadline
// less startMargin, or until ctx ends (the agent stopping: preparing.go).
func (d *Daemon) prepareData(ctx context.Context, l auctiontypes.Lease, inputs []endpoint.Input) ([]runner.Mount, error) {
	if err := d.canFetch(l, inputs); err != nil {
		return nil, err
	}
	if d.data == nil {
		return nil, nil
	}
	by := l.StartDeadline.Add(-startMargin)
	fctx, cancel := context.WithDeadline(ctx, by)
	defer cancel()
	mounts, err := d.data.Prepare(fctx, l.Id, inputs)
	if errors.Is(fctx.Err(), context.DeadlineExceeded) {
		return nil, fmt.Errorf("%w: the inputs of lease %d were not fetched before its start deadline less %s", ErrRefused, l.Id, startMargin)
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
func (d *Daemon) canFetch(l auctiontypes.Lease, inputs []endpoint.Input) error {
	if len(inputs) == 0 {
		return nil
	}
	if d.data == nil {
		return fmt.Errorf("%w: this agent fetches no inputs", ErrRefused)
	}
	if d.runner != nil && d.runner.Name() == "process" {
		return fmt.Errorf("%w: the process runner cannot mount inputs", ErrRefused)
	}
	if !time.Now().Before(l.StartDeadline.Add(-startMargin)) {
		return fmt.Errorf("%w: lease %d must start by %s, too soon to fetch its inputs", ErrRefused, l.Id, l.StartDeadline.UTC().Format(time.RFC3339))
	}
	return nil
}

// discardData drops the data of a lease whose job did not start.
func (d *Daemon) discardData(leaseID uint64) {
	if d.data == nil {
		return
	}
	if err := d.data.Discard(leaseID); err != nil {
		d.log.Warn("job data: removing the data of a lease that did not start", "lease", leaseID, "err", err)
	}
}

// finaliseOutputs lists and signs a lease's outputs once its job has
// stopped; the listing states when they are deleted.
func (d *Daemon) finaliseOutputs(leaseID uint64, endedAt time.Time) error {
	if d.data == nil {
		return nil
	}
	l, err := d.data.Finalise(leaseID, endedAt)
	if errors.Is(err, endpoint.ErrNoOutputs) {
		return nil
	}
	if err != nil {
		return err
	}
	d.log.Info("outputs listed", "lease", leaseID, "files", len(l.Files), "skipped", l.Skipped, "delete_at", l.DeleteAt)
	return nil
}

// outputsOptions serve the store's outputs at the endpoint.
func (d *Daemon) outputsOptions() []endpoint.Option {
	if d.data == nil {
		return nil
	}
	return []endpoint.Option{endpoint.WithOutputs(d.data)}
}

// sweepData deletes outputs past their retention until ctx ends.
func (d *Daemon) sweepData(ctx context.Context) error {
	if d.data == nil {
		return nil
	}
	return d.data.RunSweeper(ctx, d.log)
}
