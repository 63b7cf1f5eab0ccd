package daemon

import (
	"context"

	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
)

// withdrawOffers pauses the machine's open offers as the agent stops
// (SIGINT, SIGTERM, a failed part), within shutdownPauseTimeout, so that a
// stopped agent wins no jobs; the next start reopens them unless the
// operator paused them. A crash (SIGKILL, power loss) skips this: the
// offers stay open until the agent is back, and a renter who wins one is
// protected by the lease's start deadline (an unstarted PENDING lease
// closes with a full refund).
func (d *Daemon) withdrawOffers(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownPauseTimeout)
	defer cancel()
	n, err := SetOffers(ctx, d.chain, d.q, d.provider, d.signer, d.localGPUs(), offertypes.OFFER_STATUS_PAUSED, d.health.chainNow())
	switch {
	case err != nil:
		d.log.Error("offers NOT paused on the way out: they stay open while the agent is stopped", "err", err)
	case n > 0:
		d.log.Info("offers paused: a stopped agent takes no new jobs", "offers", n)
	}
}
