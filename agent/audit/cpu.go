package audit

import (
	"context"
	"fmt"
	"time"

	"github.com/idlegpu/idlegpu/agent/internal/ctxtime"
	settlementaudit "github.com/idlegpu/idlegpu/x/settlement/audit"
)

// CPU answers audits of simulated GPUs with the CPU reference, paced to the
// speed the simulated model claims: a simulated H100 neither answers
// faster than a real one could nor needs one to be present.
type CPU struct {
	// UnitsPerSecond is the claimed speed of a GPU by uuid (0: unpaced).
	UnitsPerSecond func(uuid string) uint64
	// Now and Sleep are the clock (time.Now and a context-aware sleep by
	// default).
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
}

// Name implements Runner.
func (CPU) Name() string { return "cpu-reference" }

// Run implements Runner.
func (c CPU) Run(ctx context.Context, uuid, workload string, seed []byte, units uint64) (Result, error) {
	w, err := settlementaudit.Reference(workload)
	if err != nil {
		return Result{}, fmt.Errorf("%w: %s", ErrUnknownWorkload, workload)
	}
	now := c.Now
	if now == nil {
		now = time.Now
	}
	start := now()
	res, err := w.Run(ctx, seed, units)
	if err != nil {
		return Result{}, err
	}
	if c.UnitsPerSecond == nil {
		return res, nil
	}
	if ups := c.UnitsPerSecond(uuid); ups > 0 {
		claimed := time.Duration(float64(units) / float64(ups) * float64(time.Second))
		if wait := claimed - now().Sub(start); wait > 0 {
			sleep := c.Sleep
			if sleep == nil {
				sleep = ctxtime.Sleep
			}
			if err := sleep(ctx, wait); err != nil {
				return Result{}, err
			}
		}
	}
	return res, nil
}
