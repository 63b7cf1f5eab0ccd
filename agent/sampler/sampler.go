// Package sampler is the agent's grid sampler: every GPU read at whole
// multiples of the sampling interval, so an epoch window of n intervals
// holds n ticks whatever the lease's start.
package sampler

import (
	"context"
	"log/slog"
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
