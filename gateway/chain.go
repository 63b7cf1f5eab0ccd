package gateway

import (
	"context"
	"fmt"
	"net/url"

	"google.golang.org/grpc"

	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
)

// LeaseIngress is where a lease's inbound service is served, as the chain
// states it: its hostname under the ingress domain its offer publishes, the
// certificate pin published with it ("": a public CA's certificate), and
// the provider's region.
type LeaseIngress struct {
	URL    *url.URL
	Pin    string
	Region string
}

// Chain finds leases' ingresses.
type Chain interface {
	LeaseIngress(ctx context.Context, lease uint64) (LeaseIngress, error)
}

// NodeChain reads leases and offers from a node's gRPC server.
type NodeChain struct{ Conn *grpc.ClientConn }

// LeaseIngress implements Chain: the lease must be PENDING or ACTIVE (an
// ended lease serves nothing) and its offer must have an ingress.
func (c NodeChain) LeaseIngress(ctx context.Context, id uint64) (LeaseIngress, error) {
	l, err := auctiontypes.NewQueryClient(c.Conn).Lease(ctx, &auctiontypes.QueryLeaseRequest{Id: id})
	if err != nil {
		return LeaseIngress{}, fmt.Errorf("lease %d: %w", id, err)
	}
	if s := l.Lease.Status; s != auctiontypes.LEASE_STATUS_PENDING && s != auctiontypes.LEASE_STATUS_ACTIVE {
		return LeaseIngress{}, fmt.Errorf("lease %d is %s: it serves nothing", id, s)
	}
	o, err := offertypes.NewQueryClient(c.Conn).Offer(ctx, &offertypes.QueryOfferRequest{Id: l.Lease.OfferId})
	if err != nil {
		return LeaseIngress{}, fmt.Errorf("lease %d's offer %d: %w", id, l.Lease.OfferId, err)
	}
	domain := o.Offer.Terms.IngressDomain
	if domain == "" {
		return LeaseIngress{}, fmt.Errorf("lease %d's offer %d has no ingress", id, l.Lease.OfferId)
	}
	return LeaseIngress{
		URL:    &url.URL{Scheme: "https", Host: offertypes.LeaseHostname(id, domain)},
		Pin:    o.Offer.Terms.IngressTlsCertSha256,
		Region: o.Offer.Region,
	}, nil
}
