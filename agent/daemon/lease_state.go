package daemon

import (
	"maps"
	"slices"

	"github.com/idlegpu/idlegpu/agent/runner"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
)

// lease is everything the daemon knows about one lease in memory (what
// must survive a restart is in its Record and its sample logs). The
// registry owns it: fields change only under the registry's lock, and
// callers outside it hold copies.
type lease struct {
	id uint64
	// chain is the lease as the last reconcile listed it; listed is false
	// once the chain no longer lists it PENDING, ACTIVE or CLOSING.
	chain  auctiontypes.Lease
	listed bool
	// job is the live job handle (nil: none started or adopted, or stopped).
	job runner.Job
	// ended is the status of the job whose handle was dropped once it
	// stopped: the renter's status query still says how it ended.
	ended *runner.Status
	// tracked: the prover keeps the lease's samples.
	tracked bool
	// onGPUs: the job has reached all its GPUs; from then on every tick is
	// the lease's.
	onGPUs bool
	// preempt is the reason the lease is queued for preemption ("": not).
	preempt string
	// exited: the job ended on its own and the lease was closed for it.
	exited bool
	// nextEpoch caches the lease's settled point (x/settlement next_epoch)
	// when nextKnown.
	nextEpoch uint64
	nextKnown bool
	// refused are the epochs whose proof the chain refused.
	refused map[uint64]bool
}

// empty says the state holds nothing worth keeping: the registry drops it.
func (l *lease) empty() bool {
	return !l.listed && l.job == nil && l.ended == nil && !l.tracked && !l.onGPUs && l.preempt == "" && !l.exited &&
		!l.nextKnown && len(l.refused) == 0
}

// clone is a copy that shares nothing mutable with l.
func (l *lease) clone() lease {
	c := *l
	c.refused = maps.Clone(l.refused)
	return c
}

// active says the chain lists the lease ACTIVE.
func (l *lease) active() bool {
	return l.listed && l.chain.Status == auctiontypes.LEASE_STATUS_ACTIVE
}

// provable says the lease's ended epochs are to be proven: ACTIVE, or
// CLOSING (ended early: its epochs up to then still are), and tracked.
func (l *lease) provable() bool {
	return l.listed && l.tracked &&
		(l.chain.Status == auctiontypes.LEASE_STATUS_ACTIVE || l.chain.Status == auctiontypes.LEASE_STATUS_CLOSING)
}

// preemptibleOn says the lease is ACTIVE BRONZE work on the GPU: what a
// GPU over a limit sheds.
func (l *lease) preemptibleOn(uuid string) bool {
	return l.active() && l.chain.Tier == auctiontypes.TIER_BRONZE && slices.Contains(l.chain.GpuUuids, uuid)
}
