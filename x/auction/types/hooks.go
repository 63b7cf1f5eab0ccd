package types

import "context"

// LeaseHooks let another module follow leases without x/auction knowing
// it: x/settlement starts a lease's epoch clock when it starts, stops it
// when the lease is ended early (CLOSING: the hook ends the lease with
// EndSettledLease once its epochs are settled, at once if none is left),
// and stops watching it when it ends. A hook error aborts the transition.
type LeaseHooks interface {
	AfterLeaseStarted(ctx context.Context, lease Lease) error
	AfterLeaseStopped(ctx context.Context, lease Lease) error
	AfterLeaseEnded(ctx context.Context, lease Lease) error
}
