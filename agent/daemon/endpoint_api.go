package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/idlegpu/idlegpu/agent/policy"
	"github.com/idlegpu/idlegpu/agent/runner"
	"github.com/idlegpu/idlegpu/chainclient"
	"github.com/idlegpu/idlegpu/endpoint"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// leaseLookup is the endpoint's view of the chain: the lease, its renter
// and its job's manifest hash. Leases of other providers are unknown here.
type leaseLookup struct{ d *Daemon }

func (ll leaseLookup) Lease(ctx context.Context, id uint64) (endpoint.Lease, error) {
	l, err := ll.d.q.Lease(ctx, id)
	if isNotFound(err) {
		return endpoint.Lease{}, endpoint.ErrNoJob
	}
	if err != nil {
		return endpoint.Lease{}, err
	}
	if l.Provider != ll.d.provider {
		return endpoint.Lease{}, endpoint.ErrNoJob
	}
	j, err := ll.d.q.Job(ctx, l.JobId)
	if err != nil {
		return endpoint.Lease{}, err
	}
	return endpoint.Lease{ID: l.Id, Renter: l.Renter, ManifestHash: j.Spec.ManifestHash, Status: l.Status.String()}, nil
}

// jobsAPI is the endpoint's side of the daemon.
type jobsAPI struct{ d *Daemon }

// ErrRefused is a manifest the agent will not run; the lease stays
// PENDING and closes at its start deadline with a full refund.
var ErrRefused = errors.New("job refused")

// Accept starts the job of a PENDING lease from its verified manifest and
// then starts the lease on chain. A manifest naming inputs is answered at
// once: they are fetched on a goroutine of their own (preparing.go) and
// the job starts after, or the lease is refused and its status says why.
// A second manifest for a running or preparing job is accepted without
// effect (a renter's retry); one after a refusal tries again.
func (ja jobsAPI) Accept(ctx context.Context, el endpoint.Lease, m endpoint.Manifest) (endpoint.Acceptance, error) {
	d := ja.d
	if what, ok := d.prep.running(el.ID); ok {
		return endpoint.Acceptance{Preparing: what}, nil
	}
	if _, busy := d.starting.LoadOrStore(el.ID, true); busy {
		return endpoint.Acceptance{}, fmt.Errorf("lease %d: a manifest is being processed", el.ID)
	}
	release := func() { d.starting.Delete(el.ID) }

	l, spec, err := d.admit(ctx, el.ID, m)
	if err != nil || l.Id == 0 {
		release()
		return endpoint.Acceptance{}, err
	}
	if len(m.Inputs) == 0 {
		defer release()
		// No fetch: the output directory is made and the job started now.
		if spec.Mounts, err = d.prepareData(ctx, l, nil); err != nil {
			return endpoint.Acceptance{}, err
		}
		return endpoint.Acceptance{}, d.startJob(ctx, l, spec)
	}
	if err := d.canFetch(l, m.Inputs); err != nil {
		release()
		return endpoint.Acceptance{}, err
	}
	what := fmt.Sprintf("fetching %d input(s)", len(m.Inputs))
	d.prep.begin(l.Id, what, func(pctx context.Context) error {
		defer release()
		mounts, err := d.prepareData(pctx, l, m.Inputs)
		if err == nil {
			spec.Mounts = mounts
			err = d.startJob(pctx, l, spec)
		}
		if err != nil {
			d.log.Warn("lease refused after its manifest was accepted", "lease", l.Id, "err", err)
		}
		return err
	})
	return endpoint.Acceptance{Preparing: what}, nil
}

// admit checks a lease a manifest arrived for and builds its job's spec.
// A zero lease and no error: the job already runs (a renter's retry).
func (d *Daemon) admit(ctx context.Context, leaseID uint64, m endpoint.Manifest) (auctiontypes.Lease, runner.Spec, error) {
	if rec, ok := d.records.Get(leaseID); ok && rec.Ended.IsZero() {
		job := d.reg.Job(leaseID)
		// A job whose start is still unsettled is the worker's to finish
		// (finishStart): a second job would be one too many.
		if job != nil && (rec.Started || rec.StartSent) {
			return auctiontypes.Lease{}, runner.Spec{}, nil
		}
	}
	l, err := d.q.Lease(ctx, leaseID)
	if err != nil {
		return auctiontypes.Lease{}, runner.Spec{}, err
	}
	if l.Status != auctiontypes.LEASE_STATUS_PENDING {
		return auctiontypes.Lease{}, runner.Spec{}, fmt.Errorf("%w: lease %d is %s", ErrRefused, l.Id, l.Status)
	}
	job, err := d.q.Job(ctx, l.JobId)
	if err != nil {
		return auctiontypes.Lease{}, runner.Spec{}, err
	}
	if err := d.acceptable(l, job); err != nil {
		return auctiontypes.Lease{}, runner.Spec{}, fmt.Errorf("%w: %v", ErrRefused, err)
	}
	image := job.Spec.Image
	if job.Spec.ImageDigest != "" && !strings.Contains(image, "@") {
		image += "@" + job.Spec.ImageDigest
	}
	return l, runner.Spec{LeaseID: l.Id, Image: image, ImageDigest: job.Spec.ImageDigest, Command: m.Command, Env: m.Env, GPUs: l.GpuUuids,
		EgressMbps: d.leaseEgressMbps(l, job)}, nil
}

// startJob records and starts a lease's job, then starts the lease on
// chain.
func (d *Daemon) startJob(ctx context.Context, l auctiontypes.Lease, spec runner.Spec) error {
	rec := Record{LeaseID: l.Id, JobID: l.JobId, Renter: l.Renter, Image: spec.Image, ImageDigest: spec.ImageDigest,
		GPUs: l.GpuUuids, Tier: l.Tier.String(), Runner: d.runner.Name(), Accepted: time.Now().UTC()}
	// The record goes first: a crash after Start leaves a job the next run
	// adopts, never one it does not know of.
	if err := d.records.Put(rec); err != nil {
		d.discardData(l.Id)
		return err
	}
	started, err := d.runner.Start(context.WithoutCancel(ctx), spec)
	if err != nil {
		_ = d.records.Delete(l.Id)
		d.discardData(l.Id)
		return fmt.Errorf("start job: %w", err)
	}
	d.reg.SetJob(l.Id, started)
	d.log.Info("job started", "lease", l.Id, "runner", d.runner.Name(), "image", spec.Image, "gpus", strings.Join(l.GpuUuids, ","))

	// From here on the lease may start on chain whatever this run sees:
	// the record must outlive an answer that never comes.
	rec.StartSent = true
	if err := d.records.Put(rec); err != nil {
		d.stopRefused(ctx, started, l.Id)
		return err
	}
	// The lease's clock starts with the block that includes this.
	res, err := d.chain.Submit(context.WithoutCancel(ctx), &auctiontypes.MsgStartLease{Signer: d.signer, LeaseId: l.Id})
	var txErr *chainclient.TxError
	switch {
	case errors.As(err, &txErr):
		// The chain's refusal is final: the lease will not start.
		d.stopRefused(ctx, started, l.Id)
		return fmt.Errorf("start lease %d on chain: %w", l.Id, err)
	case err != nil:
		// Not seen in a block in time (or no answer): the tx may still
		// land. Stopping the job now would leave an ACTIVE lease unproven,
		// so the worker settles it from the lease's state (reconcile).
		d.log.Warn("lease start not confirmed: the job runs on and the chain decides", "lease", l.Id, "err", err)
		d.poke()
		return nil
	}
	rec.Started = true
	if err := d.records.Put(rec); err != nil {
		return err
	}
	d.log.Info("lease started", "lease", l.Id, "height", res.Height, "tx", res.TxHash)
	d.poke()
	return nil
}

// stopRefused undoes Accept for a lease that will not start: the job
// stops and its record goes. A job that would not stop keeps both, so the
// lease's end (retire) stops it later.
func (d *Daemon) stopRefused(ctx context.Context, job runner.Job, leaseID uint64) {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), stopTimeout)
	defer cancel()
	if err := job.Stop(sctx); err != nil {
		d.log.Warn("the job of a lease that will not start did not stop", "lease", leaseID, "err", err)
		return
	}
	d.reg.SetJob(leaseID, nil)
	_ = d.records.Delete(leaseID)
	d.discardData(leaseID)
}

// acceptable applies the policy to a lease's job: workloads, images,
// duration, egress, and the thermal state of the GPUs.
func (d *Daemon) acceptable(l auctiontypes.Lease, job auctiontypes.Job) error {
	for _, g := range l.GpuUuids {
		if _, ok := d.devices[g]; !ok {
			return fmt.Errorf("GPU %s is not on this machine", g)
		}
		if d.auditor.Holds(g) {
			return fmt.Errorf("GPU %s is running an audit", g)
		}
	}
	if d.limits.Hot() {
		return errors.New("GPUs are over the thermal or power limit")
	}
	if err := d.gate.refusal(); err != nil {
		return err
	}
	if err := policy.AcceptsEgress(d.egressPerGPU(), job.Spec.MinEgressMbpsPerGpu); err != nil {
		return err
	}
	model := ""
	if len(l.GpuUuids) > 0 {
		model = d.devices[l.GpuUuids[0]].Model
	}
	return policy.Accepts(d.cfg.Policy, policy.Job{
		Workload: workloadName(job.Spec.Workload), Image: job.Spec.Image, Model: model,
		Duration: time.Duration(l.DurationSeconds) * time.Second,
	})
}

// workloadName maps the chain's workload to the policy's names.
func workloadName(w offertypes.Workload) string {
	switch w {
	case offertypes.WORKLOAD_INFERENCE:
		return "inference"
	case offertypes.WORKLOAD_TRAINING:
		return "training"
	case offertypes.WORKLOAD_BATCH:
		return "batch"
	case offertypes.WORKLOAD_RENDER:
		return "render"
	}
	return w.String()
}

// Status reports a lease's job.
func (ja jobsAPI) Status(ctx context.Context, leaseID uint64) (endpoint.JobStatus, error) {
	d := ja.d
	rec, ok := d.records.Get(leaseID)
	if !ok {
		p, preparing := d.prep.get(leaseID)
		if !preparing {
			return endpoint.JobStatus{}, endpoint.ErrNoJob
		}
		st := endpoint.JobStatus{LeaseID: leaseID, ExitCode: -1, Refused: p.refused}
		if p.refused == "" {
			st.Preparing = p.what
		}
		if l, err := d.q.Lease(ctx, leaseID); err == nil {
			st.Lease = l.Status.String()
		}
		return st, nil
	}
	st := endpoint.JobStatus{LeaseID: leaseID, Lease: rec.Status, ExitCode: -1}
	if l, err := d.q.Lease(ctx, leaseID); err == nil {
		st.Lease = l.Status.String()
	}
	if p, err := d.q.Progress(ctx, leaseID); err == nil {
		st.EpochsProven = p.ProvenEpochs
	}
	// A running job has no exit code yet (-1); an ended one reports its
	// own, also once its handle is dropped.
	l, _ := d.reg.Get(leaseID)
	js := l.Ended
	if l.Job != nil {
		s := l.Job.Status()
		js = &s
	}
	if js != nil {
		st.Running, st.Error = js.Running, js.Err
		if !js.Running {
			st.Exited, st.ExitCode = true, js.ExitCode
		}
	}
	return st, nil
}

// Logs opens a lease's job log: the live job's, or what an ended or
// earlier job left in <work_dir>/lease-<id> (job.log; the docker runner's
// older part in job.log.1, read first by runner.OpenJobLog).
func (ja jobsAPI) Logs(leaseID uint64) (io.ReadCloser, error) {
	d := ja.d
	if _, ok := d.records.Get(leaseID); !ok {
		return nil, endpoint.ErrNoJob
	}
	if job := d.reg.Job(leaseID); job != nil {
		return job.Logs()
	}
	f, err := runner.OpenJobLog(filepath.Join(d.cfg.Runner.WorkDir, fmt.Sprintf("lease-%d", leaseID)))
	if errors.Is(err, os.ErrNotExist) {
		return nil, endpoint.ErrNoJob
	}
	return f, err
}

// Samples are an epoch's recorded samples.
func (ja jobsAPI) Samples(leaseID, epoch uint64) ([]settlementtypes.Sample, bool) {
	return ja.d.prover.Samples(leaseID, epoch)
}
