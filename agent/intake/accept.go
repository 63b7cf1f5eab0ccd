package intake

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/idlegpu/idlegpu/agent/records"
	"github.com/idlegpu/idlegpu/agent/runner"
	"github.com/idlegpu/idlegpu/chainclient"
	"github.com/idlegpu/idlegpu/endpoint"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
)

// ErrRefused is a manifest the agent will not run; the lease stays
// PENDING and closes at its start deadline with a full refund.
var ErrRefused = errors.New("job refused")

// Accept starts the job of a PENDING lease from its verified manifest and
// then starts the lease on chain. A manifest naming inputs is answered at
// once: they are fetched on a goroutine of their own (preparing.go) and
// the job starts after, or the lease is refused and its status says why.
// A second manifest for a running or preparing job is accepted without
// effect (a renter's retry); one after a refusal tries again.
func (in *Intake) Accept(ctx context.Context, el endpoint.Lease, m endpoint.Manifest) (endpoint.Acceptance, error) {
	if what, ok := in.prep.running(el.ID); ok {
		return endpoint.Acceptance{Preparing: what}, nil
	}
	if _, busy := in.starting.LoadOrStore(el.ID, true); busy {
		return endpoint.Acceptance{}, fmt.Errorf("lease %d: a manifest is being processed", el.ID)
	}
	release := func() { in.starting.Delete(el.ID) }

	l, spec, err := in.admit(ctx, el.ID, m)
	if err != nil || l.Id == 0 {
		release()
		return endpoint.Acceptance{}, err
	}
	if len(m.Inputs) == 0 {
		defer release()
		// No fetch: the output directory is made and the job started now.
		if spec.Mounts, err = in.prepareData(ctx, l, nil); err != nil {
			return endpoint.Acceptance{}, err
		}
		return endpoint.Acceptance{}, in.startJob(ctx, l, spec)
	}
	if err := in.canFetch(l, m.Inputs); err != nil {
		release()
		return endpoint.Acceptance{}, err
	}
	what := fmt.Sprintf("fetching %d input(s)", len(m.Inputs))
	in.prep.begin(l.Id, what, func(pctx context.Context) error {
		defer release()
		mounts, err := in.prepareData(pctx, l, m.Inputs)
		if err == nil {
			spec.Mounts = mounts
			err = in.startJob(pctx, l, spec)
		}
		if err != nil {
			in.Log.Warn("lease refused after its manifest was accepted", "lease", l.Id, "err", err)
		}
		return err
	})
	return endpoint.Acceptance{Preparing: what}, nil
}

// admit checks a lease a manifest arrived for and builds its job's spec.
// A zero lease and no error: the job already runs (a renter's retry).
func (in *Intake) admit(ctx context.Context, leaseID uint64, m endpoint.Manifest) (auctiontypes.Lease, runner.Spec, error) {
	if rec, ok := in.Records.Get(leaseID); ok && rec.Ended.IsZero() {
		job := in.Leases.Job(leaseID)
		// A job whose start is still unsettled is the reconciler's to finish
		// (finishStart): a second job would be one too many.
		if job != nil && (rec.Started || rec.StartSent) {
			return auctiontypes.Lease{}, runner.Spec{}, nil
		}
	}
	l, err := in.Chain.Lease(ctx, leaseID)
	if err != nil {
		return auctiontypes.Lease{}, runner.Spec{}, err
	}
	if l.Status != auctiontypes.LEASE_STATUS_PENDING {
		return auctiontypes.Lease{}, runner.Spec{}, fmt.Errorf("%w: lease %d is %s", ErrRefused, l.Id, l.Status)
	}
	job, err := in.Chain.Job(ctx, l.JobId)
	if err != nil {
		return auctiontypes.Lease{}, runner.Spec{}, err
	}
	if err := in.Acceptable(l, job); err != nil {
		return auctiontypes.Lease{}, runner.Spec{}, fmt.Errorf("%w: %v", ErrRefused, err)
	}
	image := job.Spec.Image
	if job.Spec.ImageDigest != "" && !strings.Contains(image, "@") {
		image += "@" + job.Spec.ImageDigest
	}
	return l, runner.Spec{LeaseID: l.Id, Image: image, ImageDigest: job.Spec.ImageDigest, Command: m.Command, Env: m.Env, GPUs: l.GpuUuids,
		EgressMbps: in.EgressMbps(l, job), ServicePort: uint16(job.Spec.IngressPort)}, nil
}

// startJob records and starts a lease's job, then starts the lease on
// chain.
func (in *Intake) startJob(ctx context.Context, l auctiontypes.Lease, spec runner.Spec) error {
	rec := records.Record{LeaseID: l.Id, JobID: l.JobId, Renter: l.Renter, Image: spec.Image, ImageDigest: spec.ImageDigest,
		GPUs: l.GpuUuids, Tier: l.Tier.String(), Runner: in.Runner.Name(), Accepted: time.Now().UTC()}
	// The record goes first: a crash after Start leaves a job the next run
	// adopts, never one it does not know of.
	if err := in.Records.Put(rec); err != nil {
		in.discardData(l.Id)
		return err
	}
	started, err := in.Runner.Start(context.WithoutCancel(ctx), spec)
	if err != nil {
		_ = in.Records.Delete(l.Id)
		in.discardData(l.Id)
		return fmt.Errorf("start job: %w", err)
	}
	in.Leases.SetJob(l.Id, started)
	in.Log.Info("job started", "lease", l.Id, "runner", in.Runner.Name(), "image", spec.Image, "gpus", strings.Join(l.GpuUuids, ","))

	// From here on the lease may start on chain whatever this run sees:
	// the record must outlive an answer that never comes.
	rec.StartSent = true
	if err := in.Records.Put(rec); err != nil {
		in.stopRefused(ctx, started, l.Id)
		return err
	}
	// The lease's clock starts with the block that includes this.
	res, err := in.Tx.Submit(context.WithoutCancel(ctx), &auctiontypes.MsgStartLease{Signer: in.Signer, LeaseId: l.Id})
	var txErr *chainclient.TxError
	switch {
	case errors.As(err, &txErr):
		// The chain's refusal is final: the lease will not start.
		in.stopRefused(ctx, started, l.Id)
		return fmt.Errorf("start lease %d on chain: %w", l.Id, err)
	case err != nil:
		// Not seen in a block in time (or no answer): the tx may still
		// land. Stopping the job now would leave an ACTIVE lease unproven,
		// so the reconciler settles it from the lease's state next step.
		in.Log.Warn("lease start not confirmed: the job runs on and the chain decides", "lease", l.Id, "err", err)
		in.Poke()
		return nil
	}
	rec.Started = true
	if err := in.Records.Put(rec); err != nil {
		return err
	}
	in.Log.Info("lease started", "lease", l.Id, "height", res.Height, "tx", res.TxHash)
	in.Poke()
	return nil
}

// stopRefused undoes Accept for a lease that will not start: the job
// stops and its record goes. A job that would not stop keeps both, so the
// lease's end (the reconciler's Retire) stops it later.
func (in *Intake) stopRefused(ctx context.Context, job runner.Job, leaseID uint64) {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), runner.StopTimeout)
	defer cancel()
	if err := job.Stop(sctx); err != nil {
		in.Log.Warn("the job of a lease that will not start did not stop", "lease", leaseID, "err", err)
		return
	}
	in.Leases.SetJob(leaseID, nil)
	_ = in.Records.Delete(leaseID)
	in.discardData(leaseID)
}
