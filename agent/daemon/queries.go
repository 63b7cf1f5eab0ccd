package daemon

import (
	"context"
	"fmt"

	"github.com/cosmos/cosmos-sdk/client"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/types/query"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// maxPages bounds every paged listing the agent reads, so a provider with an
// absurd number of leases cannot stall a tick (500 × 100 entries).
const maxPages = 500

// Queries reads the chain state the agent acts on, over the node's ABCI
// query (gRPC services of the four modules).
type Queries struct {
	auction    auctiontypes.QueryClient
	offer      offertypes.QueryClient
	provider   providertypes.QueryClient
	settlement settlementtypes.QueryClient
}

// NewQueries returns query clients on a client context (an RPC node).
func NewQueries(c client.Context) Queries {
	return Queries{
		auction:    auctiontypes.NewQueryClient(c),
		offer:      offertypes.NewQueryClient(c),
		provider:   providertypes.NewQueryClient(c),
		settlement: settlementtypes.NewQueryClient(c),
	}
}

// pages walks a paged listing until its last page.
func pages(ctx context.Context, get func(p *query.PageRequest) (*query.PageResponse, error)) error {
	var key []byte
	for i := 0; i < maxPages; i++ {
		res, err := get(&query.PageRequest{Key: key, Limit: 100})
		if err != nil {
			return err
		}
		if res == nil || len(res.NextKey) == 0 {
			return nil
		}
		key = res.NextKey
	}
	return fmt.Errorf("listing longer than %d pages", maxPages)
}

// ProviderLeases lists the provider's leases in a status.
func (q Queries) ProviderLeases(ctx context.Context, provider string, status auctiontypes.LeaseStatus) ([]auctiontypes.Lease, error) {
	var out []auctiontypes.Lease
	err := pages(ctx, func(p *query.PageRequest) (*query.PageResponse, error) {
		res, err := q.auction.ProviderLeases(ctx, &auctiontypes.QueryProviderLeasesRequest{Provider: provider, Status: status, Pagination: p})
		if err != nil {
			return nil, err
		}
		out = append(out, res.Leases...)
		return res.Pagination, nil
	})
	return out, err
}

// Lease is one lease.
func (q Queries) Lease(ctx context.Context, id uint64) (auctiontypes.Lease, error) {
	res, err := q.auction.Lease(ctx, &auctiontypes.QueryLeaseRequest{Id: id})
	if err != nil {
		return auctiontypes.Lease{}, err
	}
	return res.Lease, nil
}

// Job is one job.
func (q Queries) Job(ctx context.Context, id uint64) (auctiontypes.Job, error) {
	res, err := q.auction.Job(ctx, &auctiontypes.QueryJobRequest{Id: id})
	if err != nil {
		return auctiontypes.Job{}, err
	}
	return res.Job, nil
}

// Progress is a lease's settlement progress (zero before its first proof).
func (q Queries) Progress(ctx context.Context, leaseID uint64) (settlementtypes.LeaseProgress, error) {
	res, err := q.settlement.LeaseProgress(ctx, &settlementtypes.QueryLeaseProgressRequest{LeaseId: leaseID})
	if err != nil {
		return settlementtypes.LeaseProgress{}, err
	}
	return res.Progress, nil
}

// Rewards are the provider's unclaimed rewards.
func (q Queries) Rewards(ctx context.Context, provider string) (sdk.Coins, error) {
	res, err := q.settlement.Rewards(ctx, &settlementtypes.QueryRewardsRequest{Provider: provider})
	if err != nil {
		return nil, err
	}
	return res.Rewards, nil
}

// Provider is the provider's record; found is false when it is not registered.
func (q Queries) Provider(ctx context.Context, provider string) (providertypes.Provider, bool, error) {
	res, err := q.provider.Provider(ctx, &providertypes.QueryProviderRequest{Operator: provider})
	if err != nil {
		if isNotFound(err) {
			return providertypes.Provider{}, false, nil
		}
		return providertypes.Provider{}, false, err
	}
	return res.Provider, true, nil
}

// ProviderGPUs lists the provider's registered GPUs.
func (q Queries) ProviderGPUs(ctx context.Context, provider string) ([]providertypes.GPU, error) {
	var out []providertypes.GPU
	err := pages(ctx, func(p *query.PageRequest) (*query.PageResponse, error) {
		res, err := q.provider.ProviderGPUs(ctx, &providertypes.QueryProviderGPUsRequest{Provider: provider, Pagination: p})
		if err != nil {
			return nil, err
		}
		out = append(out, res.Gpus...)
		return res.Pagination, nil
	})
	return out, err
}

// ProviderOffers lists the provider's offers.
func (q Queries) ProviderOffers(ctx context.Context, provider string) ([]offertypes.Offer, error) {
	var out []offertypes.Offer
	err := pages(ctx, func(p *query.PageRequest) (*query.PageResponse, error) {
		res, err := q.offer.ProviderOffers(ctx, &offertypes.QueryProviderOffersRequest{Provider: provider, Pagination: p})
		if err != nil {
			return nil, err
		}
		out = append(out, res.Offers...)
		return res.Pagination, nil
	})
	return out, err
}

// Params are the parameters of the modules the agent follows.
type Params struct {
	Settlement settlementtypes.Params
	Auction    auctiontypes.Params
	Offer      offertypes.Params
}

// Params reads the modules' parameters.
func (q Queries) Params(ctx context.Context) (Params, error) {
	s, err := q.settlement.Params(ctx, &settlementtypes.QueryParamsRequest{})
	if err != nil {
		return Params{}, fmt.Errorf("settlement params: %w", err)
	}
	a, err := q.auction.Params(ctx, &auctiontypes.QueryParamsRequest{})
	if err != nil {
		return Params{}, fmt.Errorf("auction params: %w", err)
	}
	o, err := q.offer.Params(ctx, &offertypes.QueryParamsRequest{})
	if err != nil {
		return Params{}, fmt.Errorf("offer params: %w", err)
	}
	return Params{Settlement: s.Params, Auction: a.Params, Offer: o.Params}, nil
}

// isNotFound is a query's "no such entry" answer.
func isNotFound(err error) bool { return status.Code(err) == codes.NotFound }

// ProviderInfo is the provider's record with its reputation.
func (q Queries) ProviderInfo(ctx context.Context, provider string) (*providertypes.QueryProviderResponse, error) {
	return q.provider.Provider(ctx, &providertypes.QueryProviderRequest{Operator: provider})
}

// Audits lists the provider's audits in a status.
func (q Queries) Audits(ctx context.Context, provider string, status settlementtypes.AuditStatus) ([]settlementtypes.Audit, error) {
	var out []settlementtypes.Audit
	err := pages(ctx, func(p *query.PageRequest) (*query.PageResponse, error) {
		res, err := q.settlement.Audits(ctx, &settlementtypes.QueryAuditsRequest{Provider: provider, Status: status, Pagination: p})
		if err != nil {
			return nil, err
		}
		out = append(out, res.Audits...)
		return res.Pagination, nil
	})
	return out, err
}

// Audit is one audit.
func (q Queries) Audit(ctx context.Context, id uint64) (settlementtypes.Audit, error) {
	res, err := q.settlement.Audit(ctx, &settlementtypes.QueryAuditRequest{AuditId: id})
	if err != nil {
		return settlementtypes.Audit{}, err
	}
	return res.Audit, nil
}

// AuditSamples are the leaves an ANSWERED audit must open; drawn is false
// until the block after its root's block drew them (or when the audit no
// longer waits for them: the chain answers both FailedPrecondition).
func (q Queries) AuditSamples(ctx context.Context, id uint64) (settlementtypes.QueryAuditSamplesResponse, bool, error) {
	res, err := q.settlement.AuditSamples(ctx, &settlementtypes.QueryAuditSamplesRequest{AuditId: id})
	if status.Code(err) == codes.FailedPrecondition {
		return settlementtypes.QueryAuditSamplesResponse{}, false, nil
	}
	if err != nil {
		return settlementtypes.QueryAuditSamplesResponse{}, false, err
	}
	return *res, true, nil
}

// GPUVerification is a GPU's audit record and whether its pass counts at
// the latest block (zero and false: never verified).
func (q Queries) GPUVerification(ctx context.Context, uuid string) (settlementtypes.QueryGPUVerificationResponse, error) {
	res, err := q.settlement.GPUVerification(ctx, &settlementtypes.QueryGPUVerificationRequest{GpuUuid: uuid})
	if err != nil {
		return settlementtypes.QueryGPUVerificationResponse{}, err
	}
	return *res, nil
}
