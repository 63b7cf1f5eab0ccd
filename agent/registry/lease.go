package registry

import (
	"maps"
	"slices"

	"github.com/idlegpu/idlegpu/agent/runner"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
)

// Lease is everything the daemon knows about one lease in memory (what
// must survive a restart is in its Record and its sample logs). The
// registry owns it: fields change only under the registry's lock, and
// callers outside it hold copies.
type Lease struct {
	ID uint64
	// Chain is the lease as the last reconcile listed it; Listed is false
	// once the chain no longer lists it PENDING, ACTIVE or CLOSING.
	Chain  auctiontypes.Lease
	Listed bool
	// Job is the live job handle (nil: none started or adopted, or stopped).
	Job runner.Job
	// Ended is the status of the job whose handle was dropped once it
	// stopped: the renter's status query still says how it Ended.
	Ended *runner.Status
	// Tracked: the prover keeps the lease's samples.
	Tracked bool
	// OnGPUs: the job has reached all its GPUs; from then on every tick is
	// the lease's.
	OnGPUs bool
	// Preempt is the reason the lease is queued for preemption ("": not).
	Preempt string
	// Exited: the job ended on its own and the lease was closed for it.
	Exited bool
	// NextEpoch caches the lease's settled point (x/settlement next_epoch)
	// when nextKnown.
	NextEpoch uint64
	NextKnown bool
	// Refused are the epochs whose proof the chain Refused.
	Refused map[uint64]bool
}

// Empty says the state holds nothing worth keeping: the registry drops it.
func (l *Lease) Empty() bool {
	return !l.Listed && l.Job == nil && l.Ended == nil && !l.Tracked && !l.OnGPUs && l.Preempt == "" && !l.Exited &&
		!l.NextKnown && len(l.Refused) == 0
}

// Clone is a copy that shares nothing mutable with l.
func (l *Lease) Clone() Lease {
	c := *l
	c.Refused = maps.Clone(l.Refused)
	return c
}

// Active says the chain lists the lease ACTIVE.
func (l *Lease) Active() bool {
	return l.Listed && l.Chain.Status == auctiontypes.LEASE_STATUS_ACTIVE
}

// Provable says the lease's ended epochs are to be proven: ACTIVE, or
// CLOSING (ended early: its epochs up to then still are), and tracked.
func (l *Lease) Provable() bool {
	return l.Listed && l.Tracked &&
		(l.Chain.Status == auctiontypes.LEASE_STATUS_ACTIVE || l.Chain.Status == auctiontypes.LEASE_STATUS_CLOSING)
}

// PreemptibleOn says the lease is ACTIVE BRONZE work on the GPU: what a
// GPU over a limit sheds.
func (l *Lease) PreemptibleOn(uuid string) bool {
	return l.Active() && l.Chain.Tier == auctiontypes.TIER_BRONZE && slices.Contains(l.Chain.GpuUuids, uuid)
}
