package daemon

import (
	"context"
	"strings"
	"time"

	"github.com/idlegpu/idlegpu/agent/hostcheck"
)

const (
	// hostCheckEvery is how often the runner, the GPUs and the disks are
	// checked.
	hostCheckEvery = 15 * time.Second
	// hostCheckTimeout bounds one round (a hung docker daemon is a
	// failed ping, not a stuck loop).
	hostCheckTimeout = 10 * time.Second
	// hostRecoverAfter is how long every check must pass before withdrawn
	// offers are restored.
	hostRecoverAfter = 2 * time.Minute
)

// HostChecker checks the parts of the machine jobs need (hostcheck.Checker).
type HostChecker interface {
	Run(ctx context.Context) []hostcheck.Result
}

// watchHost checks the machine every hostCheckEvery until ctx ends.
func (d *Daemon) watchHost(ctx context.Context) error {
	t := time.NewTicker(hostCheckEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case now := <-t.C:
			d.checkHost(ctx, now)
		}
	}
}

// checkHost runs one round of checks at now. A change of verdict is logged once,
// shown in /healthz and /metrics, and has the worker publish the offers
// at once (paused, or restored unless the operator paused them).
func (d *Daemon) checkHost(ctx context.Context, now time.Time) {
	if d.host == nil {
		return
	}
	cctx, cancel := context.WithTimeout(ctx, hostCheckTimeout)
	rs := d.host.Run(cctx)
	cancel()
	if ctx.Err() != nil {
		return
	}
	for _, r := range rs {
		d.m.SetHostCheck(r.Part, r.OK())
	}
	changed := d.gate.observe(rs, now)
	unhealthy, reasons := d.gate.verdict()
	d.health.host(unhealthy, reasons)
	d.m.SetHealthy(!unhealthy)
	if !changed {
		return
	}
	if unhealthy {
		d.log.Error("THIS MACHINE CANNOT RUN JOBS: offers withdrawn and new leases refused until it is healthy again",
			"reasons", strings.Join(reasons, "; "))
	} else {
		d.log.Info("machine healthy again: offers restored unless the operator paused them", "healthy_for", hostRecoverAfter)
	}
	d.offersDue.Store(true)
	d.poke()
}
