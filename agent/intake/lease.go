package intake

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idlegpu/idlegpu/endpoint"
)

// Lease is the endpoint's view of the chain: the lease, its renter
// and its job's manifest hash. Leases of other providers are unknown here.
func (in *Intake) Lease(ctx context.Context, id uint64) (endpoint.Lease, error) {
	l, err := in.Chain.Lease(ctx, id)
	if status.Code(err) == codes.NotFound {
		return endpoint.Lease{}, endpoint.ErrNoJob
	}
	if err != nil {
		return endpoint.Lease{}, err
	}
	if l.Provider != in.Provider {
		return endpoint.Lease{}, endpoint.ErrNoJob
	}
	j, err := in.Chain.Job(ctx, l.JobId)
	if err != nil {
		return endpoint.Lease{}, err
	}
	return endpoint.Lease{ID: l.Id, Renter: l.Renter, ManifestHash: j.Spec.ManifestHash, Status: l.Status.String()}, nil
}
