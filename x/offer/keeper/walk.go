package keeper

import (
	"context"
	"slices"
	"time"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/offer/types"
)

// WalkCandidates visits the OPEN offers that fit q, cheapest first on q's
// lane (ties by offer id), calling fn for each until fn returns stop or
// MaxScan index entries were visited. Each (model, continent) is one range
// scan of the market index bounded by q.MaxPrice, merged across q.Models and
// the continents of q.Regions; a job that takes any model walks the
// any-model index. So reaching the first fit costs O(log n + k) for k
// entries skipped, whatever n is, and offers on other continents are never
// among the k.
//
// Filters applied here, so the caller need not: model, denom, price ≤ max,
// lane, memory, region, workload, image allowlist, a window covering
// [now, now+duration] within max_duration, and enough free GPUs. Provider
// status and reliability are the caller's (x/auction's) to check.
//
// fn must not write x/offer state: iterators are open while it runs.
// It returns the number of index entries visited. One walk is a Walks of
// its own; a block's clearings share one (walks.go).
func (k Keeper) WalkCandidates(ctx context.Context, q types.CandidateQuery, fn func(types.Candidate) (stop bool, err error)) (uint32, error) {
	w := k.NewWalks()
	defer w.Close()
	return w.Walk(ctx, q, fn)
}

// less orders index keys of one lane and denom by price, then offer id.
func less(a, b types.IndexKey) bool {
	if c := a.Price.BigIntMut().Cmp(b.Price.BigIntMut()); c != 0 {
		return c < 0
	}
	return a.OfferID < b.OfferID
}

// fits applies the job filters the index cannot; it returns the free GPUs.
func fits(o types.Offer, q types.CandidateQuery, now time.Time) ([]string, bool) {
	if o.MemoryMib < q.MinMemoryMiB || !q.RegionAccepted(o.Region) ||
		!o.Terms.AcceptsWorkload(q.Workload) || !o.Terms.AllowsImage(q.ImageDigest) ||
		!o.Terms.AllowsImageRef(q.Image) ||
		!o.Terms.HasResources(q.MinCPUCoresPerGPU, q.MinMemoryMiBPerGPU, q.MinDiskGiBPerGPU) ||
		!o.Terms.GivesEgress(q.MinEgressMbpsPerGPU) || !o.Terms.GivesIngress(q.IngressPort) ||
		!o.Terms.Covers(now, q.DurationSeconds) {
		return nil, false
	}
	need := int(q.GPUCount)
	if q.AllowSplit {
		need = 1
	}
	if len(o.GpuUuids)-len(o.OccupiedGpuUuids) < need {
		return nil, false
	}
	return o.FreeGPUs(), true
}

// Fit checks one offer against q as the walk would (OPEN, one of q's
// models, priced on q's lane in q's denom, and every filter) except the
// price cap: x/auction uses it for explicit bids, which name their offer
// and carry their own price. ok is false when it does not fit.
func (k Keeper) Fit(ctx context.Context, offerID uint64, q types.CandidateQuery) (types.Candidate, bool, error) {
	if err := q.Validate(); err != nil {
		return types.Candidate{}, false, err
	}
	o, err := k.Offer(ctx, offerID)
	if err != nil {
		return types.Candidate{}, false, err
	}
	if o.Status != types.OFFER_STATUS_OPEN || (len(q.Models) > 0 && !slices.Contains(q.Models, o.Model)) {
		return types.Candidate{}, false, nil
	}
	price, ok := o.Terms.Price(q.Lane)
	if !ok || price.Denom != q.MaxPrice.Denom {
		return types.Candidate{}, false, nil
	}
	free, ok := fits(o, q, sdk.UnwrapSDKContext(ctx).BlockTime())
	if !ok {
		return types.Candidate{}, false, nil
	}
	return types.Candidate{Offer: o, Price: price, FreeGPUs: free}, true, nil
}

// AcceptsDenom reports whether the market takes payment in denom (the
// payment_denoms param; x/auction reads it here).
func (k Keeper) AcceptsDenom(ctx context.Context, denom string) (bool, error) {
	p, err := k.Params.Get(ctx)
	if err != nil {
		return false, err
	}
	return p.AcceptsDenom(denom), nil
}
