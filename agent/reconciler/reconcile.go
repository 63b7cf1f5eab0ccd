package reconciler

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
	"github.com/idlegpu/idlegpu/agent/records"
	"github.com/idlegpu/idlegpu/agent/registry"
	"github.com/idlegpu/idlegpu/agent/runner"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
)

// Reconcile brings the local jobs in line with the provider's leases.
// quiet is the agent's first step: the leases it finds are not new wins.
func (r *Reconciler) Reconcile(ctx context.Context, now time.Time, quiet bool) error {
	pending, err := r.Chain.ProviderLeases(ctx, r.Provider, auctiontypes.LEASE_STATUS_PENDING)
	if err != nil {
		return err
	}
	active, err := r.Chain.ProviderLeases(ctx, r.Provider, auctiontypes.LEASE_STATUS_ACTIVE)
	if err != nil {
		return err
	}
	closing, err := r.Chain.ProviderLeases(ctx, r.Provider, auctiontypes.LEASE_STATUS_CLOSING)
	if err != nil {
		return err
	}
	listed := slices.Concat(pending, active, closing)
	live := make(map[uint64]bool, len(listed))
	for _, l := range listed {
		live[l.Id] = true
	}
	fresh, none := r.Leases.List(listed)
	first := none && quiet
	for _, l := range fresh {
		if !first && l.Status == auctiontypes.LEASE_STATUS_PENDING {
			r.Metrics.Wins.Inc()
			r.Log.Info("lease won", "lease", l.Id, "job", l.JobId, "gpus", len(l.GpuUuids), "price", l.Price.String(), "tier", l.Tier)
		}
	}
	r.Metrics.Leases.WithLabelValues("pending").Set(float64(len(pending)))
	r.Metrics.Leases.WithLabelValues("active").Set(float64(len(active)))

	for _, l := range active {
		if err := r.KeepActive(ctx, l, now); err != nil {
			r.Fail(fmt.Sprintf("lease %d", l.Id), err)
		}
	}
	for _, l := range closing {
		if err := r.keepClosing(ctx, l); err != nil {
			r.Fail(fmt.Sprintf("lease %d", l.Id), err)
		}
	}
	for _, l := range pending {
		if err := r.finishStart(ctx, l); err != nil {
			r.Fail(fmt.Sprintf("lease %d", l.Id), err)
		}
	}
	for _, rec := range r.Records.All() {
		if live[rec.LeaseID] {
			continue
		}
		if r.Starting(rec.LeaseID) {
			continue
		}
		if err := r.Retire(ctx, rec, now); err != nil {
			r.Fail(fmt.Sprintf("lease %d", rec.LeaseID), err)
		}
	}
	return nil
}

// KeepActive tracks an ACTIVE lease for proving, stops its job at the
// lease's end, and closes the lease when the job ended early.
func (r *Reconciler) KeepActive(ctx context.Context, l auctiontypes.Lease, now time.Time) error {
	rec, ok := r.Records.Get(l.Id)
	if !ok {
		return nil // started by another agent of the provider
	}
	if !rec.Started {
		rec.Started = true
		if err := r.Records.Put(rec); err != nil {
			return err
		}
	}
	st, _ := r.Leases.Get(l.Id)
	job := st.Job
	if !st.Tracked {
		p, err := r.Chain.Progress(ctx, l.Id)
		if err != nil {
			return err
		}
		es := p.EpochSeconds
		if es == 0 {
			es = r.Settlement.EpochSeconds
		}
		if err := r.Prover.Track(proof.Lease{ID: l.Id, GPUs: l.GpuUuids, Start: l.Start,
			DurationSeconds: l.DurationSeconds, EpochSeconds: es, ImageDigest: rec.ImageDigest}); err != nil {
			return err
		}
		r.Track(l)
	}
	// One sample interval past the end, so the tick at the window's end is
	// taken with the job still on the GPUs.
	end := l.Start.Add(time.Duration(l.DurationSeconds)*time.Second + r.Settlement.SampleInterval())
	if !now.Before(end) {
		// The lease's time is up: its last epoch is proven from the samples
		// already taken, and the GPUs are free for the next job.
		return r.StopJob(ctx, l.Id, "lease time is up")
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
	if _, err := r.Tx.Submit(ctx, &auctiontypes.MsgCloseLease{Signer: r.Signer, LeaseId: l.Id, Reason: reason}); err != nil {
		return fmt.Errorf("close lease after its job ended: %w", err)
	}
	r.Log.Warn("lease closed: its job ended early", "lease", l.Id, "reason", reason)
	r.Leases.Update(l.Id, func(l *registry.Lease) { l.Exited = true })
	return r.StopJob(ctx, l.Id, "its job ended")
}

// keepClosing handles a lease ended early (CLOSING): its job stops now, and
// its epochs up to the time it was ended are still proven — the chain cut
// its duration there.
func (r *Reconciler) keepClosing(ctx context.Context, l auctiontypes.Lease) error {
	rec, ok := r.Records.Get(l.Id)
	if !ok || !(rec.Started || rec.StartSent) {
		return nil // started by another agent of the provider, or never by us
	}
	if !rec.Started {
		// Only an ACTIVE lease becomes CLOSING: our start landed.
		rec.Started = true
		if err := r.Records.Put(rec); err != nil {
			return err
		}
	}
	if err := r.StopJob(ctx, l.Id, "lease ended early: "+l.Reason); err != nil {
		return err
	}
	p, err := r.Chain.Progress(ctx, l.Id)
	if err != nil {
		return err
	}
	if st, _ := r.Leases.Get(l.Id); !st.Tracked {
		// A restarted agent: the samples it took before are on disk.
		es := cmp.Or(p.EpochSeconds, r.Settlement.EpochSeconds)
		if err := r.Prover.Track(proof.Lease{ID: l.Id, GPUs: l.GpuUuids, Start: l.Start,
			DurationSeconds: cmp.Or(p.DurationSeconds, l.DurationSeconds), EpochSeconds: es, ImageDigest: rec.ImageDigest}); err != nil {
			return err
		}
		r.Leases.Track(l.Id, nil)
	}
	if p.DurationSeconds > 0 {
		r.Prover.Cut(l.Id, p.DurationSeconds)
	}
	return nil
}

// finishStart sends MsgStartLease for a PENDING lease whose job runs but
// whose start did not reach the chain (the agent died in between, or the
// tx was not seen in a block in time and has not landed since).
func (r *Reconciler) finishStart(ctx context.Context, l auctiontypes.Lease) error {
	if r.Starting(l.Id) {
		return nil
	}
	rec, ok := r.Records.Get(l.Id)
	if !ok || rec.Started {
		return nil
	}
	if r.Leases.Job(l.Id) == nil {
		if rec.StartSent {
			// A start sent earlier may still land: the record stays, so an
			// ACTIVE lease is closed for its missing job (KeepActive) and
			// one that expires is retired.
			return nil
		}
		// No job to start the lease for: drop the record; the lease closes
		// by itself at its start deadline with a full refund.
		return r.Records.Delete(l.Id)
	}
	if !rec.StartSent {
		rec.StartSent = true
		if err := r.Records.Put(rec); err != nil {
			return err
		}
	}
	// A refusal is not final here: most likely the earlier start landed
	// meanwhile, which the next reconcile sees.
	if _, err := r.Tx.Submit(ctx, &auctiontypes.MsgStartLease{Signer: r.Signer, LeaseId: l.Id}); err != nil {
		return fmt.Errorf("start lease: %w", err)
	}
	rec.Started = true
	r.Log.Info("lease started (resumed)", "lease", l.Id)
	return r.Records.Put(rec)
}

// Retire handles a recorded lease that is no longer PENDING, ACTIVE or
// CLOSING: its job is stopped, and after KeepFinished its samples and
// record go.
func (r *Reconciler) Retire(ctx context.Context, rec records.Record, now time.Time) error {
	if rec.Ended.IsZero() {
		if err := r.StopAny(ctx, rec, "lease ended"); err != nil {
			return err
		}
		if err := r.Finalise(rec.LeaseID, now); err != nil {
			return err
		}
		rec.Ended = now
		if l, err := r.Chain.Lease(ctx, rec.LeaseID); err == nil {
			rec.Status = l.Status.String()
			r.Log.Info("lease ended", "lease", rec.LeaseID, "status", l.Status, "reason", l.Reason, "paid", l.Paid.String())
		}
		return r.Records.Put(rec)
	}
	if now.Sub(rec.Ended) < KeepFinished {
		return nil
	}
	if err := r.Prover.Forget(rec.LeaseID); err != nil {
		return err
	}
	r.Leases.Remove(rec.LeaseID)
	_ = os.RemoveAll(filepath.Join(r.WorkDir, fmt.Sprintf("lease-%d", rec.LeaseID)))
	return r.Records.Delete(rec.LeaseID)
}

// StopAny stops a lease's job, also one this run holds no handle on (its
// lease ended while the agent was away, or it was never adopted).
func (r *Reconciler) StopAny(ctx context.Context, rec records.Record, why string) error {
	if r.Leases.Job(rec.LeaseID) == nil {
		job, err := r.Runner.Adopt(ctx, rec.Spec())
		if errors.Is(err, runner.ErrNotRunning) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("adopt the job of lease %d to stop it: %w", rec.LeaseID, err)
		}
		r.Leases.SetJob(rec.LeaseID, job)
	}
	return r.StopJob(ctx, rec.LeaseID, why)
}

// StopJob stops a lease's job if it runs.
func (r *Reconciler) StopJob(ctx context.Context, leaseID uint64, why string) error {
	job := r.Leases.Job(leaseID)
	if job == nil {
		return nil
	}
	select {
	case <-job.Done():
	default:
		r.Log.Info("stopping job", "lease", leaseID, "why", why)
		sctx, cancel := context.WithTimeout(ctx, runner.StopTimeout)
		defer cancel()
		if err := job.Stop(sctx); err != nil {
			return fmt.Errorf("stop job: %w", err)
		}
	}
	st := job.Status()
	r.Leases.Update(leaseID, func(l *registry.Lease) { l.Job, l.Ended = nil, &st })
	// The job is gone: its outputs are final, and the renter may download
	// them now rather than once the lease is settled (retire lists them
	// again if this fails).
	if err := r.Finalise(leaseID, time.Now()); err != nil {
		r.Log.Warn("outputs not listed yet", "lease", leaseID, "err", err)
	}
	return nil
}
