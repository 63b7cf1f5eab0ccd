package types

import "context"

// LeaseHooks let another module follow leases without x/auction knowing
// it: x/settlement starts a lease's epoch clock when it starts and stops
// watching it when it ends. A hook error aborts the transition.
type LeaseHooks interface {
	AfterLeaseStarted(ctx context.Context, lease Lease) error
	AfterLeaseEnded(ctx context.Context, lease Lease) error
}
