package daemon

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"time"

	"github.com/idlegpu/idlegpu/agent/gpu"
	"github.com/idlegpu/idlegpu/internal/ctxtime"
)

// Sampler reads every GPU on a fixed grid: ticks at whole multiples of the
// interval since the Unix epoch, so every epoch window of n intervals holds
// n ticks whatever the lease's start, as x/settlement's sample count expects.
type Sampler struct {
	GPUs     gpu.Backend
	Interval time.Duration
	Log      *slog.Logger
	// Now and Sleep are the clock (tests replace them).
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
}

// NextTick is the first grid point strictly after t.
func NextTick(t time.Time, interval time.Duration) time.Time {
	return t.Truncate(interval).Add(interval)
}

// Run samples until ctx ends, handing each tick's readings to fn. A GPU
// that fails to read is logged and left out of that tick; the others go on.
func (s *Sampler) Run(ctx context.Context, uuids func() []string, fn func(tick time.Time, rs []gpu.Reading)) error {
	now, sleep := s.Now, s.Sleep
	if now == nil {
		now = time.Now
	}
	if sleep == nil {
		sleep = ctxtime.Sleep
	}
	for {
		tick := NextTick(now(), s.Interval)
		if err := sleep(ctx, tick.Sub(now())); err != nil {
			return err
		}
		var rs []gpu.Reading
		for _, u := range uuids() {
			r, err := s.GPUs.Read(ctx, u)
			if err != nil {
				s.Log.Warn("gpu read failed", "gpu", u, "err", err)
				continue
			}
			rs = append(rs, r)
		}
		fn(tick, rs)
	}
}

// sampledGPUs are all the machine's GPUs: leased ones are proven, and every
// one feeds the metrics and the thermal limits. A backend that cannot see
// processes is first told the jobs'.
func (d *Daemon) sampledGPUs() []string {
	if a, ok := d.gpus.(gpu.JobAttacher); ok {
		a.AttachJobs(d.runningJobs())
	}
	return slices.Sorted(maps.Keys(d.devices))
}

// runningJobs are the processes of every job not ended and the GPUs of
// its lease (from its record once the chain lists it no more).
func (d *Daemon) runningJobs() []gpu.JobProcs {
	var out []gpu.JobProcs
	for _, l := range d.reg.snapshot() {
		if l.job == nil {
			continue
		}
		select {
		case <-l.job.Done():
			continue
		default:
		}
		gpus := l.chain.GpuUuids
		if !l.listed {
			rec, _ := d.records.Get(l.id)
			gpus = rec.GPUs
		}
		out = append(out, gpu.JobProcs{LeaseID: l.id, GPUs: gpus, PIDs: l.job.PIDs()})
	}
	return out
}
