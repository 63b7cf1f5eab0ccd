package daemon

import (
	"context"
	"fmt"
	"maps"
	"slices"

	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"

	"github.com/idlegpu/idlegpu/agent/registry"
)

// preemptHot preempts the BRONZE leases the sampler found on a GPU over a
// limit: the job stops and the lease ends PREEMPTED, which the chain does
// not count against the provider.
func (d *Daemon) preemptHot(ctx context.Context) {
	queued := d.reg.TakePreempts()
	for _, id := range slices.Sorted(maps.Keys(queued)) {
		reason := queued[id]
		if err := d.stopJob(ctx, id, reason); err != nil {
			d.fail("preempt", err)
		}
		if _, err := d.chain.Submit(ctx, &auctiontypes.MsgPreemptLease{Signer: d.signer, LeaseId: id, Reason: reason}); err != nil {
			d.fail("preempt", fmt.Errorf("lease %d: %w", id, err))
			continue
		}
		d.log.Warn("lease preempted", "lease", id, "reason", reason)
		d.reg.Update(id, func(l *registry.Lease) {
			if l.Listed { // not queued again before the next reconcile
				l.Chain.Status = auctiontypes.LEASE_STATUS_PREEMPTED
			}
		})
	}
}
