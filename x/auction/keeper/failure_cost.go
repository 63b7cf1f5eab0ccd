package keeper

import (
	"context"

	"github.com/idlegpu/idlegpu/x/auction/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

// Failure costs (docs/design.md#failure-costs-and-fees): every way a
// provider fails a renter costs at least what refusing the lease openly
// does — a full reliability step and a failed lease — and none is free at
// any price or size of lease. x/settlement charges misses
// (keeper/liveness.go: miss); these are x/auction's.

// recordRefusal is the cost of a provider's refusal: closing its PENDING
// or ACTIVE lease, or leaving a PENDING one unstarted until it expires (the
// same price, so silence never undercuts an open refusal). A BRONZE lease
// may be taken back at no cost: a preemption.
func (k Keeper) recordRefusal(ctx context.Context, l types.Lease) error {
	provider, err := k.storedAddress(l.Provider)
	if err != nil {
		return err
	}
	if l.Tier == types.TIER_BRONZE {
		return k.providers.RecordLeaseOutcome(ctx, provider, providertypes.LEASE_OUTCOME_PREEMPTED)
	}
	if err := k.providers.RecordLeaseOutcome(ctx, provider, providertypes.LEASE_OUTCOME_FAILED); err != nil {
		return err
	}
	return k.providers.RecordEpoch(ctx, provider, false)
}

// refusalRecorded reports whether ending l already cost its provider a
// failed lease (recordRefusal for a close it made).
func refusalRecorded(l types.Lease) bool {
	return l.ClosedByProvider && l.Tier != types.TIER_BRONZE && l.FinalStatus == types.LEASE_STATUS_CLOSED
}

// settledOutcome is what a lease whose epochs are all settled records for
// its provider: a lease with a missed epoch is a failure — never a
// completion, whatever excuses its other epochs had — unless its close
// already recorded one; one that ran its term without a miss is a
// completion if any epoch was proven; a CLOSING lease without a miss
// records what its final status does (a preemption, or nothing).
func settledOutcome(l types.Lease, rec types.SettledRecord) providertypes.LeaseOutcome {
	closing := l.Status == types.LEASE_STATUS_CLOSING
	switch {
	case rec == types.SETTLED_MISSED && closing && refusalRecorded(l):
		return providertypes.LEASE_OUTCOME_UNSPECIFIED
	case rec == types.SETTLED_MISSED:
		return providertypes.LEASE_OUTCOME_FAILED
	case closing:
		outcome, _ := leaseOutcome(l.FinalStatus)
		return outcome
	case rec == types.SETTLED_COMPLETED:
		return providertypes.LEASE_OUTCOME_COMPLETED
	}
	return providertypes.LEASE_OUTCOME_UNSPECIFIED
}
