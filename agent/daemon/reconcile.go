package daemon

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/idlegpu/idlegpu/agent/proof"
	"github.com/idlegpu/idlegpu/agent/registry"
	"github.com/idlegpu/idlegpu/agent/runner"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
)

// reconcile brings the local jobs in line with the provider's leases.
func (d *Daemon) reconcile(ctx context.Context, now time.Time) error {
	pending, err := d.q.ProviderLeases(ctx, d.provider, auctiontypes.LEASE_STATUS_PENDING)
	if err != nil {
		return err
	}
	active, err := d.q.ProviderLeases(ctx, d.provider, auctiontypes.LEASE_STATUS_ACTIVE)
	if err != nil {
		return err
	}
	closing, err := d.q.ProviderLeases(ctx, d.provider, auctiontypes.LEASE_STATUS_CLOSING)
	if err != nil {
		return err
	}
	listed := slices.Concat(pending, active, closing)
	live := make(map[uint64]bool, len(listed))
	for _, l := range listed {
		live[l.Id] = true
	}
	fresh, none := d.reg.List(listed)
	first := none && d.lastOffers.IsZero()
	for _, l := range fresh {
		if !first && l.Status == auctiontypes.LEASE_STATUS_PENDING {
			d.m.Wins.Inc()
			d.log.Info("lease won", "lease", l.Id, "job", l.JobId, "gpus", len(l.GpuUuids), "price", l.Price.String(), "tier", l.Tier)
		}
	}
	d.m.Leases.WithLabelValues("pending").Set(float64(len(pending)))
	d.m.Leases.WithLabelValues("active").Set(float64(len(active)))

	for _, l := range active {
		if err := d.keepActive(ctx, l, now); err != nil {
			d.fail(fmt.Sprintf("lease %d", l.Id), err)
		}
	}
	for _, l := range closing {
		if err := d.keepClosing(ctx, l); err != nil {
			d.fail(fmt.Sprintf("lease %d", l.Id), err)
		}
	}
	for _, l := range pending {
		if err := d.finishStart(ctx, l); err != nil {
			d.fail(fmt.Sprintf("lease %d", l.Id), err)
		}
	}
	for _, rec := range d.records.All() {
		if live[rec.LeaseID] {
			continue
		}
		if _, busy := d.starting.Load(rec.LeaseID); busy {
			continue
		}
		if err := d.retire(ctx, rec, now); err != nil {
			d.fail(fmt.Sprintf("lease %d", rec.LeaseID), err)
		}
	}
	return nil
}

// keepActive tracks an ACTIVE lease for proving, stops its job at the
// lease's end, and closes the lease when the job ended early.
func (d *Daemon) keepActive(ctx context.Context, l auctiontypes.Lease, now time.Time) error {
	rec, ok := d.records.Get(l.Id)
	if !ok {
		return nil // started by another agent of the provider
	}
	if !rec.Started {
		rec.Started = true
		if err := d.records.Put(rec); err != nil {
			return err
		}
	}
	st, _ := d.reg.Get(l.Id)
	job := st.Job
	if !st.Tracked {
		p, err := d.q.Progress(ctx, l.Id)
		if err != nil {
			return err
		}
		es := p.EpochSeconds
		if es == 0 {
			es = d.params.Settlement.EpochSeconds
		}
		if err := d.prover.Track(proof.Lease{ID: l.Id, GPUs: l.GpuUuids, Start: l.Start,
			DurationSeconds: l.DurationSeconds, EpochSeconds: es, ImageDigest: rec.ImageDigest}); err != nil {
			return err
		}
		d.startTracking(l)
	}
	// One sample interval past the end, so the tick at the window's end is
	// taken with the job still on the GPUs.
	end := l.Start.Add(time.Duration(l.DurationSeconds)*time.Second + d.params.Settlement.SampleInterval())
	if !now.Before(end) {
		// The lease's time is up: its last epoch is proven from the samples
		// already taken, and the GPUs are free for the next job.
		return d.stopJob(ctx, l.Id, "lease time is up")
	}
	if st.Exited {
		return nil
	}
	if job != nil {
		select {
		case <-job.Done():
		default:
			return nil
		}
	}
	// The job is gone before the lease's end: epochs without it cannot be
	// proven, so the lease is closed now and the renter refunded the rest.
	reason := "the job is gone (it ended while the agent was not running)"
	if job != nil {
		st := job.Status()
		reason = fmt.Sprintf("the job exited (code %d) before the lease ended", st.ExitCode)
		if st.Err != "" {
			reason += ": " + st.Err
		}
	}
	if _, err := d.chain.Submit(ctx, &auctiontypes.MsgCloseLease{Signer: d.signer, LeaseId: l.Id, Reason: reason}); err != nil {
		return fmt.Errorf("close lease after its job ended: %w", err)
	}
	d.log.Warn("lease closed: its job ended early", "lease", l.Id, "reason", reason)
	d.reg.Update(l.Id, func(l *registry.Lease) { l.Exited = true })
	return d.stopJob(ctx, l.Id, "its job ended")
}

// keepClosing handles a lease ended early (CLOSING): its job stops now, and
// its epochs up to the time it was ended are still proven — the chain cut
// its duration there.
func (d *Daemon) keepClosing(ctx context.Context, l auctiontypes.Lease) error {
	rec, ok := d.records.Get(l.Id)
	if !ok || !(rec.Started || rec.StartSent) {
		return nil // started by another agent of the provider, or never by us
	}
	if !rec.Started {
		// Only an ACTIVE lease becomes CLOSING: our start landed.
		rec.Started = true
		if err := d.records.Put(rec); err != nil {
			return err
		}
	}
	if err := d.stopJob(ctx, l.Id, "lease ended early: "+l.Reason); err != nil {
		return err
	}
	p, err := d.q.Progress(ctx, l.Id)
	if err != nil {
		return err
	}
	if st, _ := d.reg.Get(l.Id); !st.Tracked {
		// A restarted agent: the samples it took before are on disk.
		es := cmp.Or(p.EpochSeconds, d.params.Settlement.EpochSeconds)
		if err := d.prover.Track(proof.Lease{ID: l.Id, GPUs: l.GpuUuids, Start: l.Start,
			DurationSeconds: cmp.Or(p.DurationSeconds, l.DurationSeconds), EpochSeconds: es, ImageDigest: rec.ImageDigest}); err != nil {
			return err
		}
		d.reg.Track(l.Id, nil)
	}
	if p.DurationSeconds > 0 {
		d.prover.Cut(l.Id, p.DurationSeconds)
	}
	return nil
}

// finishStart sends MsgStartLease for a PENDING lease whose job runs but
// whose start did not reach the chain (the agent died in between, or the
// tx was not seen in a block in time and has not landed since).
func (d *Daemon) finishStart(ctx context.Context, l auctiontypes.Lease) error {
	if _, busy := d.starting.Load(l.Id); busy {
		return nil
	}
	rec, ok := d.records.Get(l.Id)
	if !ok || rec.Started {
		return nil
	}
	if d.reg.Job(l.Id) == nil {
		if rec.StartSent {
			// A start sent earlier may still land: the record stays, so an
			// ACTIVE lease is closed for its missing job (keepActive) and
			// one that expires is retired.
			return nil
		}
		// No job to start the lease for: drop the record; the lease closes
		// by itself at its start deadline with a full refund.
		return d.records.Delete(l.Id)
	}
	if !rec.StartSent {
		rec.StartSent = true
		if err := d.records.Put(rec); err != nil {
			return err
		}
	}
	// A refusal is not final here: most likely the earlier start landed
	// meanwhile, which the next reconcile sees.
	if _, err := d.chain.Submit(ctx, &auctiontypes.MsgStartLease{Signer: d.signer, LeaseId: l.Id}); err != nil {
		return fmt.Errorf("start lease: %w", err)
	}
	rec.Started = true
	d.log.Info("lease started (resumed)", "lease", l.Id)
	return d.records.Put(rec)
}

// retire handles a recorded lease that is no longer PENDING, ACTIVE or
// CLOSING: its job is stopped, and after keepFinished its samples and
// record go.
func (d *Daemon) retire(ctx context.Context, rec Record, now time.Time) error {
	if rec.Ended.IsZero() {
		if err := d.stopAny(ctx, rec, "lease ended"); err != nil {
			return err
		}
		if err := d.finaliseOutputs(rec.LeaseID, now); err != nil {
			return err
		}
		rec.Ended = now
		if l, err := d.q.Lease(ctx, rec.LeaseID); err == nil {
			rec.Status = l.Status.String()
			d.log.Info("lease ended", "lease", rec.LeaseID, "status", l.Status, "reason", l.Reason, "paid", l.Paid.String())
		}
		return d.records.Put(rec)
	}
	if now.Sub(rec.Ended) < keepFinished {
		return nil
	}
	if err := d.prover.Forget(rec.LeaseID); err != nil {
		return err
	}
	d.reg.Remove(rec.LeaseID)
	_ = os.RemoveAll(filepath.Join(d.cfg.Runner.WorkDir, fmt.Sprintf("lease-%d", rec.LeaseID)))
	return d.records.Delete(rec.LeaseID)
}

// stopAny stops a lease's job, also one this run holds no handle on (its
// lease ended while the agent was away, or it was never adopted).
func (d *Daemon) stopAny(ctx context.Context, rec Record, why string) error {
	if d.reg.Job(rec.LeaseID) == nil {
		job, err := d.runner.Adopt(ctx, rec.jobSpec())
		if errors.Is(err, runner.ErrNotRunning) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("adopt the job of lease %d to stop it: %w", rec.LeaseID, err)
		}
		d.reg.SetJob(rec.LeaseID, job)
	}
	return d.stopJob(ctx, rec.LeaseID, why)
}

// stopJob stops a lease's job if it runs.
func (d *Daemon) stopJob(ctx context.Context, leaseID uint64, why string) error {
	job := d.reg.Job(leaseID)
	if job == nil {
		return nil
	}
	select {
	case <-job.Done():
	default:
		d.log.Info("stopping job", "lease", leaseID, "why", why)
		sctx, cancel := context.WithTimeout(ctx, stopTimeout)
		defer cancel()
		if err := job.Stop(sctx); err != nil {
			return fmt.Errorf("stop job: %w", err)
		}
	}
	st := job.Status()
	d.reg.Update(leaseID, func(l *registry.Lease) { l.Job, l.Ended = nil, &st })
	// The job is gone: its outputs are final, and the renter may download
	// them now rather than once the lease is settled (retire lists them
	// again if this fails).
	if err := d.finaliseOutputs(leaseID, time.Now()); err != nil {
		d.log.Warn("outputs not listed yet", "lease", leaseID, "err", err)
	}
	return nil
}
