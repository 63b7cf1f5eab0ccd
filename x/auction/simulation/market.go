package simulation

import (
	"context"
	"fmt"

	"cosmossdk.io/collections"
	"cosmossdk.io/math"

	"github.com/cosmos/cosmos-sdk/testutil/simsx"
	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/auction/keeper"
	"github.com/idlegpu/idlegpu/x/auction/types"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
)

// OfferParams reads x/offer's params (the market's payment denoms).
type OfferParams interface {
	AcceptsDenom(ctx context.Context, denom string) (bool, error)
}

// MsgPostJobFactory posts a job any model may serve, paid in the bond
// denom from part of a renter's balance (reserved so fees cannot spend it).
func MsgPostJobFactory(k keeper.Keeper, offers OfferParams) simsx.SimMsgFactoryFn[*types.MsgPostJob] {
	return func(ctx context.Context, testData *simsx.ChainDataSource, reporter simsx.SimulationReporter) ([]simsx.SimAccount, *types.MsgPostJob) {
		r := testData.Rand()
		params, err := k.Params.Get(ctx)
		if err != nil {
			reporter.Skip(err.Error())
			return nil, nil
		}
		denom := sdk.DefaultBondDenom
		if ok, err := offers.AcceptsDenom(ctx, denom); err != nil || !ok {
			reporter.Skip("the market does not take the bond denom")
			return nil, nil
		}
		renter := testData.AnyAccount(reporter, simsx.WithDenomBalance(denom))
		if reporter.IsSkipped() {
			return nil, nil
		}
		budget := renter.LiquidBalance().RandSubsetCoin(reporter, denom)
		if reporter.IsSkipped() {
			return nil, nil
		}
		gpus := uint32(r.Intn(int(min(params.MaxGpusPerJob, 4)))) + 1
		duration := uint64(r.Intn(int(min(params.MaxJobDurationSeconds, 6*3600)))) + 1
		// The largest max price whose deposit fits the budget.
		maxPrice := budget.Amount.MulRaw(types.SecondsPerHour).Quo(math.NewIntFromUint64(uint64(gpus) * duration))
		if !maxPrice.IsPositive() || maxPrice.BigIntMut().BitLen() > types.MaxPriceBits {
			reporter.Skip("budget too small or too large for a price")
			return nil, nil
		}
		tier := []types.Tier{types.TIER_GOLD, types.TIER_SILVER, types.TIER_BRONZE}[r.Intn(3)]
		spec := types.JobSpec{
			Image: "ghcr.io/sim/job", ImageDigest: "sha256:" + fmt.Sprintf("%064x", r.Uint64()),
			ManifestHash: fmt.Sprintf("%064x", r.Uint64()), Workload: offertypes.WORKLOAD_BATCH,
			GpuCount: gpus, Tier: tier, Preemptible: tier == types.TIER_BRONZE, DurationSeconds: duration,
			MaxPrice: sdk.NewCoin(denom, maxPrice), BidWindowBlocks: uint32(r.Intn(3)), AllowSplit: r.Intn(2) == 0,
		}
		if r.Intn(4) == 0 { // a quarter of the jobs need internet egress; only offers giving as much match
			spec.MinEgressMbpsPerGpu = uint32(r.Intn(10_000)) + 1
		}
		if r.Intn(4) == 0 { // a quarter serve inbound traffic; only offers with an ingress match
			spec.IngressPort = uint32(r.Intn(65535)) + 1
		}
		return []simsx.SimAccount{renter}, &types.MsgPostJob{Renter: renter.AddressBech32, Spec: spec}
	}
}

// MsgCancelJobFactory cancels an OPEN or MATCHED job of a sim account.
func MsgCancelJobFactory(k keeper.Keeper) simsx.SimMsgFactoryFn[*types.MsgCancelJob] {
	return func(ctx context.Context, testData *simsx.ChainDataSource, reporter simsx.SimulationReporter) ([]simsx.SimAccount, *types.MsgCancelJob) {
		var ids []uint64
		var renters []string
		if err := k.Jobs.Walk(ctx, nil, func(id uint64, j types.Job) (bool, error) {
			if (j.Status == types.JOB_STATUS_OPEN || j.Status == types.JOB_STATUS_MATCHED) && testData.HasAccount(j.Renter) {
				ids, renters = append(ids, id), append(renters, j.Renter)
			}
			return false, nil
		}); err != nil || len(ids) == 0 {
			reporter.Skip("no job to cancel")
			return nil, nil
		}
		i := testData.Rand().Intn(len(ids))
		renter := testData.GetAccount(reporter, renters[i])
		return []simsx.SimAccount{renter}, &types.MsgCancelJob{Renter: renters[i], JobId: ids[i]}
	}
}

// liveLease picks a lease in one of statuses whose chosen party (provider
// or renter) is a sim account.
func liveLease(ctx context.Context, k keeper.Keeper, testData *simsx.ChainDataSource, reporter simsx.SimulationReporter,
	byProvider bool, ok func(types.Lease) bool,
) (types.Lease, simsx.SimAccount) {
	var leases []types.Lease
	if err := k.Leases.Walk(ctx, nil, func(_ uint64, l types.Lease) (bool, error) {
		party := l.Renter
		if byProvider {
			party = l.Provider
		}
		if ok(l) && testData.HasAccount(party) {
			leases = append(leases, l)
		}
		return false, nil
	}); err != nil || len(leases) == 0 {
		reporter.Skip("no lease in the right state")
		return types.Lease{}, simsx.SimAccount{}
	}
	l := leases[testData.Rand().Intn(len(leases))]
	party := l.Renter
	if byProvider {
		party = l.Provider
	}
	return l, testData.GetAccount(reporter, party)
}

// MsgStartLeaseFactory starts a PENDING lease as its provider.
func MsgStartLeaseFactory(k keeper.Keeper) simsx.SimMsgFactoryFn[*types.MsgStartLease] {
	return func(ctx context.Context, testData *simsx.ChainDataSource, reporter simsx.SimulationReporter) ([]simsx.SimAccount, *types.MsgStartLease) {
		l, provider := liveLease(ctx, k, testData, reporter, true, func(l types.Lease) bool { return l.Status == types.LEASE_STATUS_PENDING })
		if reporter.IsSkipped() {
			return nil, nil
		}
		return []simsx.SimAccount{provider}, &types.MsgStartLease{Signer: provider.AddressBech32, LeaseId: l.Id}
	}
}

// MsgCloseLeaseFactory closes a live lease as its renter.
func MsgCloseLeaseFactory(k keeper.Keeper) simsx.SimMsgFactoryFn[*types.MsgCloseLease] {
	return func(ctx context.Context, testData *simsx.ChainDataSource, reporter simsx.SimulationReporter) ([]simsx.SimAccount, *types.MsgCloseLease) {
		l, renter := liveLease(ctx, k, testData, reporter, false, func(l types.Lease) bool {
			return l.Status == types.LEASE_STATUS_PENDING || l.Status == types.LEASE_STATUS_ACTIVE
		})
		if reporter.IsSkipped() {
			return nil, nil
		}
		return []simsx.SimAccount{renter}, &types.MsgCloseLease{Signer: renter.AddressBech32, LeaseId: l.Id, Reason: "sim"}
	}
}

// MsgPreemptLeaseFactory preempts a live BRONZE lease as its provider.
func MsgPreemptLeaseFactory(k keeper.Keeper) simsx.SimMsgFactoryFn[*types.MsgPreemptLease] {
	return func(ctx context.Context, testData *simsx.ChainDataSource, reporter simsx.SimulationReporter) ([]simsx.SimAccount, *types.MsgPreemptLease) {
		l, provider := liveLease(ctx, k, testData, reporter, true, func(l types.Lease) bool {
			return l.Tier == types.TIER_BRONZE && (l.Status == types.LEASE_STATUS_PENDING || l.Status == types.LEASE_STATUS_ACTIVE)
		})
		if reporter.IsSkipped() {
			return nil, nil
		}
		return []simsx.SimAccount{provider}, &types.MsgPreemptLease{Signer: provider.AddressBech32, LeaseId: l.Id, Reason: "sim"}
	}
}

// MsgPlaceBidFactory bids on an OPEN job as a sim provider that may serve
// it, naming one of its offers the clearing walk would accept, at a price
// between that offer's floor and the job's max.
func MsgPlaceBidFactory(k keeper.Keeper, offers types.OfferKeeper) simsx.SimMsgFactoryFn[*types.MsgPlaceBid] {
	return func(ctx context.Context, testData *simsx.ChainDataSource, reporter simsx.SimulationReporter) ([]simsx.SimAccount, *types.MsgPlaceBid) {
		r := testData.Rand()
		params, err := k.Params.Get(ctx)
		if err != nil {
			reporter.Skip(err.Error())
			return nil, nil
		}
		var open []types.Job
		if err := k.Jobs.Walk(ctx, nil, func(_ uint64, j types.Job) (bool, error) {
			if j.Status == types.JOB_STATUS_OPEN && j.BidDeadline > sdk.UnwrapSDKContext(ctx).BlockHeight() {
				open = append(open, j)
			}
			return len(open) >= 64, nil
		}); err != nil || len(open) == 0 {
			reporter.Skip("no job open for bids")
			return nil, nil
		}
		job := open[r.Intn(len(open))]
		if job.Bids >= params.MaxBidsPerJob {
			reporter.Skip("the job has all the bids it takes")
			return nil, nil
		}
		gpus := job.Spec.GpuCount
		if job.Spec.AllowSplit {
			gpus = uint32(r.Intn(int(gpus))) + 1
		}
		q := job.Spec.CandidateQuery(params)
		q.GPUCount, q.AllowSplit = gpus, false
		var fits []offertypes.Candidate
		walks := offers.NewWalks()
		_, err = walks.Walk(ctx, q, func(c offertypes.Candidate) (bool, error) {
			if testData.HasAccount(c.Offer.Provider) {
				fits = append(fits, c)
			}
			return false, nil
		})
		walks.Close()
		if err != nil || len(fits) == 0 {
			reporter.Skip("no sim provider's offer fits the job")
			return nil, nil
		}
		c := fits[r.Intn(len(fits))]
		provider := testData.GetAccount(reporter, c.Offer.Provider)
		if reporter.IsSkipped() {
			return nil, nil
		}
		if _, err := k.Eligible(ctx, provider.Address, job.Spec.Tier); err != nil {
			reporter.Skip(err.Error())
			return nil, nil
		}
		// floor + a random part of (max − floor).
		span := job.Spec.MaxPrice.Amount.Sub(c.Price.Amount)
		price := c.Price.Amount.Add(span.MulRaw(int64(r.Intn(101))).QuoRaw(100))
		return []simsx.SimAccount{provider}, &types.MsgPlaceBid{
			Signer: provider.AddressBech32, Provider: provider.AddressBech32, JobId: job.Id, OfferId: c.Offer.Id,
			Price: sdk.NewCoin(c.Price.Denom, price), GpuCount: gpus,
		}
	}
}

// MsgWithdrawBidFactory withdraws a sim provider's bid from an OPEN job.
func MsgWithdrawBidFactory(k keeper.Keeper) simsx.SimMsgFactoryFn[*types.MsgWithdrawBid] {
	return func(ctx context.Context, testData *simsx.ChainDataSource, reporter simsx.SimulationReporter) ([]simsx.SimAccount, *types.MsgWithdrawBid) {
		var bids []types.Bid
		if err := k.Bids.Walk(ctx, nil, func(_ collections.Pair[uint64, sdk.AccAddress], b types.Bid) (bool, error) {
			if testData.HasAccount(b.Provider) {
				bids = append(bids, b)
			}
			return len(bids) >= 64, nil
		}); err != nil || len(bids) == 0 {
			reporter.Skip("no bid to withdraw")
			return nil, nil
		}
		b := bids[testData.Rand().Intn(len(bids))]
		provider := testData.GetAccount(reporter, b.Provider)
		if reporter.IsSkipped() {
			return nil, nil
		}
		return []simsx.SimAccount{provider}, &types.MsgWithdrawBid{Signer: provider.AddressBech32, Provider: b.Provider, JobId: b.JobId}
	}
}
