package daemon

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/idlegpu/idlegpu/agent/gpu"
	"github.com/idlegpu/idlegpu/agent/registry"
	"github.com/idlegpu/idlegpu/agent/sampler"
	"github.com/idlegpu/idlegpu/agent/state"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// paramsFile keeps the last settlement params the agent read from the
// chain, so that a restart during an outage of the node samples on the
// chain's grid at once.
const paramsFile = "settlement_params.json"

// maxRecentTicks caps the ticks kept for backfill whatever the params
// (a tick is a reading per GPU: some hundred bytes each).
const maxRecentTicks = 4096

// startUp brings the daemon up to the point where it follows the chain:
// the GPUs, the sampler, the chain's params and the provider, and the jobs
// of the recorded leases.
//
// The sampler does not wait for the node. A restarted agent knows its GPUs
// without the chain, and the sample grid from the params its last run
// saved, so it samples from the start even while the node is unreachable
// (an RPC outage of a minute would otherwise cost epochs, and two missed
// in a row get the provider slashed). Until the chain answers no lease is
// tracked: the ticks only fill the recent ring, which keeps about two
// epochs' worth (recentBound), and a lease tracked once the chain is back
// has them backfilled (backfill), each tick once, into the epochs the
// chain has not settled yet. The ring holds only this run's ticks, later
// than any the last run logged, so none is logged twice. On a first start
// (no saved params) the sampler waits for the chain's params.
//
// run starts a part of the daemon; the sampler is one.
func (d *Daemon) startUp(ctx context.Context, run func(name string, f func(context.Context) error)) error {
	if err := d.loadDevices(ctx); err != nil {
		return err
	}
	run("job data sweeper", d.sweepData)
	path := filepath.Join(d.cfg.State.Dir, paramsFile)
	var saved settlementtypes.Params
	found, err := state.LoadJSON(path, &saved)
	if err != nil {
		d.log.Warn("saved settlement params unreadable: sampling waits for the chain", "path", path, "err", err)
		found = false
	}
	var interval time.Duration
	stop, stopped := func() {}, make(chan struct{})
	if found && saved.SampleIntervalSeconds > 0 {
		interval = saved.SampleInterval()
		d.setRecentBound(saved)
		sctx, cancel := context.WithCancel(ctx)
		stop = cancel
		run("sampler", func(context.Context) error {
			defer close(stopped)
			err := d.sampler(interval).Run(sctx, d.sampledGPUs, d.onSample)
			if sctx.Err() != nil {
				return nil // replaced below, or the daemon stops
			}
			return err
		})
	} else {
		close(stopped)
	}

	if err := d.loadChainState(ctx); err != nil {
		stop()
		return err
	}
	if err := state.SaveJSON(path, d.params.Settlement); err != nil {
		d.log.Warn("settlement params not saved", "path", path, "err", err)
	}
	d.setRecentBound(d.params.Settlement)
	if chainInterval := d.params.Settlement.SampleInterval(); chainInterval != interval {
		// The chain's grid changed while the agent was down (or there was
		// none saved): one sampler at a time, on the chain's grid.
		stop()
		<-stopped
		run("sampler", func(ctx context.Context) error {
			return d.sampler(chainInterval).Run(ctx, d.sampledGPUs, d.onSample)
		})
	}
	return d.leases().Recover(ctx)
}

// sampler is the GPU sampler on an interval.
func (d *Daemon) sampler(interval time.Duration) *sampler.Sampler {
	return &sampler.Sampler{GPUs: d.gpus, Interval: interval, Log: d.log}
}

// loadDevices reads the machine's GPUs.
func (d *Daemon) loadDevices(ctx context.Context) error {
	devs, err := d.gpus.Devices(ctx)
	if err != nil {
		return fmt.Errorf("gpus: %w", err)
	}
	d.devices = map[string]gpu.Info{}
	for _, g := range devs {
		d.devices[g.UUID] = g
	}
	return nil
}

// setRecentBound sizes the backfill ring to two epochs of ticks (an
// outage of up to an epoch, plus the epoch it ended in), within
// recentTicks..maxRecentTicks.
func (d *Daemon) setRecentBound(p settlementtypes.Params) {
	n := registry.RecentTicks
	if p.SampleIntervalSeconds > 0 {
		n = int(min(max(2*p.EpochSeconds/p.SampleIntervalSeconds, registry.RecentTicks), maxRecentTicks))
	}
	d.reg.SetRecentBound(n)
}

// resumeHeight is the block to follow from: the first block of the oldest
// epoch still to be proven (its window needs a header), or 0 (the latest)
// when nothing is owed.
func (d *Daemon) resumeHeight(ctx context.Context) (int64, error) {
	var oldest time.Time
	for _, rec := range d.records.All() {
		// A start still unconfirmed may have landed: the lease's status says.
		if !rec.Ended.IsZero() || !(rec.Started || rec.StartSent) {
			continue
		}
		l, err := d.q.Lease(ctx, rec.LeaseID)
		if err != nil || (l.Status != auctiontypes.LEASE_STATUS_ACTIVE && l.Status != auctiontypes.LEASE_STATUS_CLOSING) {
			continue
		}
		p, err := d.q.Progress(ctx, l.Id)
		if err != nil {
			return 0, err
		}
		es := p.EpochSeconds
		if es == 0 {
			es = d.params.Settlement.EpochSeconds
		}
		from, _, ok := settlementtypes.EpochWindow(l.Start, cmp.Or(p.DurationSeconds, l.DurationSeconds), es, p.NextEpoch)
		if ok && (oldest.IsZero() || from.Before(oldest)) {
			oldest = from
		}
	}
	if oldest.IsZero() {
		return 0, nil
	}
	return d.chain.HeightAt(ctx, oldest)
}
