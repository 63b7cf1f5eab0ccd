package types

import "context"

// LeaseHooks let another module follow leases without x/auction knowing
// it: x/settlement starts a lease's epoch clock when it starts, stops it
// when the lease is ended early (CLOSING: the hook ends the lease with
// EndSettledLease once its epochs are settled, at once if none is left),
// and stops watching it when it ends, and forgets it when it is pruned. A
// hook error aborts the transition.
type LeaseHooks interface {
	AfterLeaseStarted(ctx context.Context, lease Lease) error
	AfterLeaseStopped(ctx context.Context, lease Lease) error
	AfterLeaseEnded(ctx context.Context, lease Lease) error
	// AfterLeasePruned: an ended lease leaves state with its job, after
	// record_retention_seconds (x/auction/keeper/retention.go); the hook
	// drops what it kept for the lease.
	AfterLeasePruned(ctx context.Context, lease Lease) error
}

// SettledRecord is how a lease's settled epochs went, which decides what
// its end records for its provider (docs/design.md#failure-costs-and-fees).
type SettledRecord uint8

const (
	// SETTLED_EXCUSED: no epoch proven or missed (every one excused):
	// nothing to record.
	SETTLED_EXCUSED SettledRecord = iota
	// SETTLED_COMPLETED: no epoch missed, at least one proven.
	SETTLED_COMPLETED
	// SETTLED_MISSED: at least one epoch missed; never a completion,
	// whatever the others were.
	SETTLED_MISSED
)
