package audit

import (
	"context"
	"time"

	"github.com/idlegpu/idlegpu/internal/ctxtime"
	settlementaudit "github.com/idlegpu/idlegpu/x/settlement/audit"
)

// CPU answers audits of simulated GPUs with the CPU reference, paced to the
// time the simulated model claims: a simulated H100 neither answers faster
// than a real one could nor needs one to be present.
type CPU struct {
	// Expected is how long an audit of the GPU with uuid takes on the
	// model it claims (0, or a nil Expected: unpaced).
	Expected func(uuid string) time.Duration
	// Now and Sleep are the clock (time.Now and a context-aware sleep by
	// default).
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
}

// Name implements Runner.
func (CPU) Name() string { return "cpu-reference" }

// Run implements Runner: the reference transcript, handed back no sooner
// than Expected(uuid) after the call.
func (c CPU) Run(ctx context.Context, uuid string, seed []byte, shape settlementaudit.Shape) (settlementaudit.States, error) {
	now := c.Now
	if now == nil {
		now = time.Now
	}
	start := now()
	states, err := settlementaudit.Run(ctx, seed, shape)
	if err != nil {
		return nil, err
	}
	if c.Expected == nil {
		return states, nil
	}
	if wait := c.Expected(uuid) - now().Sub(start); wait > 0 {
		sleep := c.Sleep
		if sleep == nil {
			sleep = ctxtime.Sleep
		}
		if err := sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
	return states, nil
}
